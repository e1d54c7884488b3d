-- Incidents can be acknowledged (once: the first acknowledgement is kept).
ALTER TABLE "incidents" ADD COLUMN "acknowledged_at" TIMESTAMP(3);
ALTER TABLE "incidents" ADD COLUMN "acknowledged_by" TEXT;

-- Channels may remind of open, unacknowledged incidents: 0 (every existing channel) sends no reminder.
ALTER TABLE "notification_channels" ADD COLUMN "reminder_minutes" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "ack_links" (
    "id" TEXT NOT NULL,
    "incident_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),

    CONSTRAINT "ack_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ack_links_token_hash_key" ON "ack_links"("token_hash");
CREATE INDEX "ack_links_incident_id_idx" ON "ack_links"("incident_id");

-- AddForeignKey
ALTER TABLE "ack_links" ADD CONSTRAINT "ack_links_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
