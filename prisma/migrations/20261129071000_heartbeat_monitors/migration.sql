-- Heartbeat (push) monitors: a fourth kind in the same table, so that incidents, channels and status pages name
-- them as they name the others. Their own columns are null for the other kinds, and existing rows are unchanged.
ALTER TYPE "MonitorKind" ADD VALUE 'heartbeat';

ALTER TABLE "monitors" ADD COLUMN "period_seconds" INTEGER;
ALTER TABLE "monitors" ADD COLUMN "cron" TEXT;
ALTER TABLE "monitors" ADD COLUMN "timezone" TEXT;
ALTER TABLE "monitors" ADD COLUMN "grace_seconds" INTEGER;
ALTER TABLE "monitors" ADD COLUMN "ping_token" TEXT;

-- A ping finds its monitor by the token.
CREATE UNIQUE INDEX "monitors_ping_token_key" ON "monitors"("ping_token");
