-- Episodes of an objective's budget burning too fast (docs/alerting.md "SLOs"): slo.burn_rate is sent when one starts and
-- slo.burn_rate_ended when it ends. At most one open episode per monitor and objective, so that of control planes
-- sweeping at once exactly one starts it (and sends its alert).
CREATE TABLE "slo_burn_episodes" (
    "id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "objective" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "ended_at" TIMESTAMP(3),

    CONSTRAINT "slo_burn_episodes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "slo_burn_episodes_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE UNIQUE INDEX "slo_burn_episodes_one_open" ON "slo_burn_episodes"("monitor_id", "objective") WHERE "ended_at" IS NULL;
