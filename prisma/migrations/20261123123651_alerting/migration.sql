-- AlterTable
ALTER TABLE "check_results" ADD COLUMN     "reason" TEXT;

-- AlterTable
ALTER TABLE "monitor_region_statuses" ADD COLUMN     "error" TEXT,
ADD COLUMN     "latency_ms" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "reason" TEXT,
ADD COLUMN     "status_code" INTEGER;

-- CreateTable
CREATE TABLE "notification_channels" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "provider_type" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "secrets" TEXT,
    "signing_secret" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_monitors" (
    "notification_id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,

    CONSTRAINT "notification_monitors_pkey" PRIMARY KEY ("notification_id","monitor_id")
);

-- CreateTable
CREATE TABLE "incidents" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "resolved_at" TIMESTAMP(3),
    "regions" TEXT[],
    "error" TEXT,
    "reason" TEXT,
    "status_code" INTEGER,

    CONSTRAINT "incidents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_events" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "incident_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "from_status" TEXT NOT NULL,
    "to_status" TEXT NOT NULL,
    "occurred_at" TIMESTAMP(3) NOT NULL,
    "details" JSONB NOT NULL,

    CONSTRAINT "alert_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_deliveries" (
    "id" TEXT NOT NULL,
    "notification_id" TEXT NOT NULL,
    "event_id" TEXT,
    "event" TEXT NOT NULL,
    "monitor_id" TEXT,
    "incident_id" TEXT,
    "event_at" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "status_code" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMP(3),

    CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_channels_workspace_id_created_at_id_idx" ON "notification_channels"("workspace_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "notification_monitors_monitor_id_idx" ON "notification_monitors"("monitor_id");

-- CreateIndex
CREATE INDEX "incidents_monitor_id_started_at_idx" ON "incidents"("monitor_id", "started_at");

-- CreateIndex
CREATE INDEX "incidents_workspace_id_started_at_idx" ON "incidents"("workspace_id", "started_at");

-- CreateIndex
CREATE INDEX "alert_events_monitor_id_occurred_at_idx" ON "alert_events"("monitor_id", "occurred_at");

-- CreateIndex
CREATE INDEX "notification_deliveries_notification_id_created_at_idx" ON "notification_deliveries"("notification_id", "created_at");

-- CreateIndex
CREATE INDEX "notification_deliveries_outcome_created_at_idx" ON "notification_deliveries"("outcome", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "notification_deliveries_event_id_notification_id_key" ON "notification_deliveries"("event_id", "notification_id");

-- AddForeignKey
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_monitors" ADD CONSTRAINT "notification_monitors_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_monitors" ADD CONSTRAINT "notification_monitors_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_incident_id_fkey" FOREIGN KEY ("incident_id") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "alert_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- At most one open incident per monitor: a failure that arrives while one is open joins it.
CREATE UNIQUE INDEX "incidents_one_open_per_monitor" ON "incidents"("monitor_id") WHERE "resolved_at" IS NULL;
