-- A maintenance window's external id: the caller's own identifier (vigil apply's keys), unique in the workspace.
ALTER TABLE "maintenance_windows" ADD COLUMN "external_id" TEXT;
CREATE UNIQUE INDEX "maintenance_windows_workspace_id_external_id_key" ON "maintenance_windows"("workspace_id", "external_id");
