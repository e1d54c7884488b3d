-- The pings of heartbeat monitors, and what the silence sweep and run durations need on the monitor.
ALTER TABLE "monitors" ADD COLUMN "last_success_at" TIMESTAMP(3);
ALTER TABLE "monitors" ADD COLUMN "last_start_at" TIMESTAMP(3);

CREATE TABLE "heartbeat_pings" (
    "id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "exit_code" INTEGER,
    "duration_ms" INTEGER,
    "body" TEXT NOT NULL DEFAULT '',
    "method" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "user_agent" TEXT NOT NULL DEFAULT '',
    "received_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "heartbeat_pings_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "heartbeat_pings_monitor_id_received_at_idx" ON "heartbeat_pings"("monitor_id", "received_at");

ALTER TABLE "heartbeat_pings" ADD CONSTRAINT "heartbeat_pings_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
