-- CreateTable
CREATE TABLE "daily_latency_buckets" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "daily_latency_buckets_pkey" PRIMARY KEY ("monitor_id","day","region","bucket")
);

-- AddForeignKey
ALTER TABLE "daily_latency_buckets" ADD CONSTRAINT "daily_latency_buckets_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
