-- Maintenance windows (docs/alerting.md "Maintenance"), the monitors and status page components they name, and the
-- occurrence starts and ends a sweep has handled (one control plane each).
CREATE TABLE "maintenance_windows" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "starts_at" TIMESTAMP(3) NOT NULL,
    "ends_at" TIMESTAMP(3) NOT NULL,
    "recurrence" TEXT NOT NULL DEFAULT '',
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "maintenance_windows_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "maintenance_window_monitors" (
    "window_id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "maintenance_window_monitors_pkey" PRIMARY KEY ("window_id","monitor_id")
);

CREATE TABLE "maintenance_window_components" (
    "window_id" TEXT NOT NULL,
    "component_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "maintenance_window_components_pkey" PRIMARY KEY ("window_id","component_id")
);

CREATE TABLE "maintenance_window_marks" (
    "window_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "maintenance_window_marks_pkey" PRIMARY KEY ("window_id","kind","at")
);

CREATE INDEX "maintenance_windows_workspace_id_starts_at_idx" ON "maintenance_windows"("workspace_id", "starts_at");
CREATE INDEX "maintenance_window_monitors_monitor_id_idx" ON "maintenance_window_monitors"("monitor_id");
CREATE INDEX "maintenance_window_components_component_id_idx" ON "maintenance_window_components"("component_id");

ALTER TABLE "maintenance_windows" ADD CONSTRAINT "maintenance_windows_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "maintenance_window_monitors" ADD CONSTRAINT "maintenance_window_monitors_window_id_fkey" FOREIGN KEY ("window_id") REFERENCES "maintenance_windows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "maintenance_window_monitors" ADD CONSTRAINT "maintenance_window_monitors_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "maintenance_window_components" ADD CONSTRAINT "maintenance_window_components_window_id_fkey" FOREIGN KEY ("window_id") REFERENCES "maintenance_windows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "maintenance_window_components" ADD CONSTRAINT "maintenance_window_components_component_id_fkey" FOREIGN KEY ("component_id") REFERENCES "status_page_components"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "maintenance_window_marks" ADD CONSTRAINT "maintenance_window_marks_window_id_fkey" FOREIGN KEY ("window_id") REFERENCES "maintenance_windows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
