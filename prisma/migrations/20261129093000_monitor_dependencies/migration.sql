-- Monitor dependencies (docs/alerting.md "Dependencies"). No existing monitor has any, so every
-- monitor alerts as before. Deleting either end of an edge drops the edge.
CREATE TABLE "monitor_dependencies" (
    "monitor_id" TEXT NOT NULL,
    "depends_on_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "monitor_dependencies_pkey" PRIMARY KEY ("monitor_id", "depends_on_id")
);

CREATE INDEX "monitor_dependencies_depends_on_id_idx" ON "monitor_dependencies"("depends_on_id");

ALTER TABLE "monitor_dependencies" ADD CONSTRAINT "monitor_dependencies_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "monitor_dependencies" ADD CONSTRAINT "monitor_dependencies_depends_on_id_fkey" FOREIGN KEY ("depends_on_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The monitors a dependency's open incident absorbed the failures of (Incident.also_affected).
CREATE TABLE "incident_also_affected" (
    "incident_id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "affected_at" TIMESTAMP(3) NOT NULL,
    -- The failure as it was (status, regions): what its alert says if it still fails when the incident resolves.
    "details" JSONB NOT NULL,

    CONSTRAINT "incident_also_affected_pkey" PRIMARY KEY ("incident_id", "monitor_id")
);

CREATE INDEX "incident_also_affected_monitor_id_idx" ON "incident_also_affected"("monitor_id");

ALTER TABLE "incident_also_affected" ADD CONSTRAINT "incident_also_affected_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "incident_also_affected" ADD CONSTRAINT "incident_also_affected_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
