-- Leaner ingest (issue 13): every stored result is added to each aggregate table by one statement
-- (apps/control-plane/src/results/store.ts). This migration takes work out of that statement.

-- Results and their aggregates keep no foreign key to monitors: PostgreSQL checked it for every row the
-- ingest inserted (a sixth of the statement), while the ingest already stores results of existing
-- monitors only, under their row locks. Deleting a monitor deletes its rows in the same transaction
-- (apps/control-plane/src/results/delete.ts).
ALTER TABLE "check_results" DROP CONSTRAINT "check_results_monitor_id_fkey";
ALTER TABLE "result_counts" DROP CONSTRAINT "result_counts_monitor_id_fkey";
ALTER TABLE "latency_buckets" DROP CONSTRAINT "latency_buckets_monitor_id_fkey";
ALTER TABLE "daily_latency_buckets" DROP CONSTRAINT "daily_latency_buckets_monitor_id_fkey";
ALTER TABLE "all_region_result_counts" DROP CONSTRAINT "all_region_result_counts_monitor_id_fkey";
ALTER TABLE "all_region_latency_buckets" DROP CONSTRAINT "all_region_latency_buckets_monitor_id_fkey";
ALTER TABLE "all_region_daily_latency_buckets" DROP CONSTRAINT "all_region_daily_latency_buckets_monitor_id_fkey";

-- Retention deletes old results monitor by monitor through (monitor_id, started_at): an index on
-- started_at alone cost every insert for a job that runs once an hour.
DROP INDEX "check_results_started_at_idx";

-- Status pages' bars sum every region of a day: they read one roll-up row per monitor and day
-- instead of one row per region, which the ingest no longer writes.
CREATE TABLE "all_region_daily_result_counts" (
    "monitor_id" TEXT NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "successful" INTEGER NOT NULL DEFAULT 0,
    "degraded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "all_region_daily_result_counts_pkey" PRIMARY KEY ("monitor_id","day")
);

INSERT INTO "all_region_daily_result_counts" ("monitor_id", "day", "successful", "degraded", "failed")
SELECT "monitor_id", "day", sum("successful"), sum("degraded"), sum("failed") FROM "daily_result_counts" GROUP BY "monitor_id", "day";

DROP TABLE "daily_result_counts";
