-- Incidents written by people on status pages, the components they affect and their updates.
CREATE TABLE "status_page_incidents" (
    "id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "postmortem" TEXT NOT NULL DEFAULT '',
    "monitor_incident_id" TEXT,
    "internal" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,
    "resolved_at" TIMESTAMP(3),

    CONSTRAINT "status_page_incidents_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "status_page_incident_components" (
    "incident_id" TEXT NOT NULL,
    "component_id" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "status_page_incident_components_pkey" PRIMARY KEY ("incident_id","component_id")
);

CREATE TABLE "status_page_incident_updates" (
    "id" TEXT NOT NULL,
    "incident_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_page_incident_updates_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "status_page_incidents_page_id_monitor_incident_id_key" ON "status_page_incidents"("page_id", "monitor_incident_id");
CREATE INDEX "status_page_incidents_page_id_created_at_idx" ON "status_page_incidents"("page_id", "created_at");
CREATE INDEX "status_page_incident_components_component_id_idx" ON "status_page_incident_components"("component_id");
CREATE INDEX "status_page_incident_updates_incident_id_created_at_idx" ON "status_page_incident_updates"("incident_id", "created_at");

ALTER TABLE "status_page_incidents" ADD CONSTRAINT "status_page_incidents_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_incidents" ADD CONSTRAINT "status_page_incidents_monitor_incident_id_fkey" FOREIGN KEY ("monitor_incident_id") REFERENCES "incidents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "status_page_incident_components" ADD CONSTRAINT "status_page_incident_components_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "status_page_incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_incident_components" ADD CONSTRAINT "status_page_incident_components_component_id_fkey" FOREIGN KEY ("component_id") REFERENCES "status_page_components"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_incident_updates" ADD CONSTRAINT "status_page_incident_updates_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "status_page_incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
