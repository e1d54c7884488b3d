-- CreateIndex
CREATE INDEX "notification_deliveries_incident_id_idx" ON "notification_deliveries"("incident_id");
