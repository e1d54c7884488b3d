-- CreateTable
CREATE TABLE "all_region_result_counts" (
    "monitor_id" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "successful" INTEGER NOT NULL DEFAULT 0,
    "degraded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "last_ping_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "all_region_result_counts_pkey" PRIMARY KEY ("monitor_id","hour")
);

-- CreateTable
CREATE TABLE "all_region_latency_buckets" (
    "monitor_id" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "all_region_latency_buckets_pkey" PRIMARY KEY ("monitor_id","hour","bucket")
);

-- CreateTable
CREATE TABLE "all_region_daily_latency_buckets" (
    "monitor_id" TEXT NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "all_region_daily_latency_buckets_pkey" PRIMARY KEY ("monitor_id","day","bucket")
);

-- AddForeignKey
ALTER TABLE "all_region_result_counts" ADD CONSTRAINT "all_region_result_counts_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "all_region_latency_buckets" ADD CONSTRAINT "all_region_latency_buckets_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "all_region_daily_latency_buckets" ADD CONSTRAINT "all_region_daily_latency_buckets_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Fill the roll-ups from the per-region aggregates, so that summaries of all regions keep the history
-- stored before this migration (from here on the ingest statement keeps them).
INSERT INTO "all_region_result_counts" ("monitor_id", "hour", "successful", "degraded", "failed", "last_ping_at")
SELECT "monitor_id", "hour", sum("successful"), sum("degraded"), sum("failed"), max("last_ping_at")
FROM "result_counts" GROUP BY "monitor_id", "hour";

INSERT INTO "all_region_latency_buckets" ("monitor_id", "hour", "bucket", "count")
SELECT "monitor_id", "hour", "bucket", sum("count") FROM "latency_buckets" GROUP BY "monitor_id", "hour", "bucket";

INSERT INTO "all_region_daily_latency_buckets" ("monitor_id", "day", "bucket", "count")
SELECT "monitor_id", "day", "bucket", sum("count") FROM "daily_latency_buckets" GROUP BY "monitor_id", "day", "bucket";
