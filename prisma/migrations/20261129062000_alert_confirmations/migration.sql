-- Per-monitor alerting (docs/alerting.md). The defaults keep every existing monitor as it was:
-- the ALERT_QUORUM of the deployment, and one check moves a region.
ALTER TABLE "monitors" ADD COLUMN "alert_quorum" TEXT NOT NULL DEFAULT '';
ALTER TABLE "monitors" ADD COLUMN "confirmations" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "monitors" ADD COLUMN "recovery_confirmations" INTEGER NOT NULL DEFAULT 1;

-- Checks in a row that disagree with the status of a region and wait for confirmation. With one
-- confirmation there are never any, so existing regions start at 0.
ALTER TABLE "monitor_region_statuses" ADD COLUMN "streak" INTEGER NOT NULL DEFAULT 0;
