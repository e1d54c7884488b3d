-- Service level objectives per monitor (docs/alerting.md "SLOs"), 0 being none, which every existing monitor keeps.
ALTER TABLE "monitors" ADD COLUMN "availability_objective" DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE "monitors" ADD COLUMN "latency_objective_ms" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "monitors" ADD COLUMN "latency_objective_percent" DOUBLE PRECISION NOT NULL DEFAULT 0;
