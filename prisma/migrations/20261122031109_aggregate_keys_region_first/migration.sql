-- AlterTable
ALTER TABLE "daily_latency_buckets" DROP CONSTRAINT "daily_latency_buckets_pkey",
ADD CONSTRAINT "daily_latency_buckets_pkey" PRIMARY KEY ("monitor_id", "region", "day", "bucket");

-- AlterTable
ALTER TABLE "latency_buckets" DROP CONSTRAINT "latency_buckets_pkey",
ADD CONSTRAINT "latency_buckets_pkey" PRIMARY KEY ("monitor_id", "region", "hour", "bucket");

-- AlterTable
ALTER TABLE "result_counts" DROP CONSTRAINT "result_counts_pkey",
ADD CONSTRAINT "result_counts_pkey" PRIMARY KEY ("monitor_id", "region", "hour");
