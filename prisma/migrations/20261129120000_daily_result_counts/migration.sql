-- Daily result counts per region, for monthly reports' availability per region (the roll-up over
-- regions alone cannot tell regions apart). Kept DAILY_AGGREGATE_RETENTION_DAYS like the other daily tables.
CREATE TABLE "daily_result_counts" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "successful" INTEGER NOT NULL DEFAULT 0,
    "degraded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_result_counts_pkey" PRIMARY KEY ("monitor_id","region","day")
);

-- Fill it from the hourly counts still kept (the last 15 days): older days have no per-region counts.
INSERT INTO "daily_result_counts" ("monitor_id", "region", "day", "successful", "degraded", "failed")
SELECT "monitor_id", "region", date_trunc('day', "hour"), sum("successful"), sum("degraded"), sum("failed")
FROM "result_counts" GROUP BY 1, 2, 3;
