-- CreateTable
CREATE TABLE "check_results" (
    "id" TEXT NOT NULL,
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "timing" JSONB NOT NULL,
    "status_code" INTEGER,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "attempts" INTEGER NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "check_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitor_region_statuses" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "last_result_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "monitor_region_statuses_pkey" PRIMARY KEY ("monitor_id","region")
);

-- CreateTable
CREATE TABLE "result_counts" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "successful" INTEGER NOT NULL DEFAULT 0,
    "degraded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "last_ping_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "result_counts_pkey" PRIMARY KEY ("monitor_id","hour","region")
);

-- CreateTable
CREATE TABLE "latency_buckets" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "latency_buckets_pkey" PRIMARY KEY ("monitor_id","hour","region","bucket")
);

-- CreateIndex
CREATE INDEX "check_results_monitor_id_started_at_idx" ON "check_results"("monitor_id", "started_at");

-- CreateIndex
CREATE INDEX "check_results_started_at_idx" ON "check_results"("started_at");

-- CreateIndex
CREATE INDEX "monitors_active_idx" ON "monitors"("active");

-- AddForeignKey
ALTER TABLE "check_results" ADD CONSTRAINT "check_results_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_region_statuses" ADD CONSTRAINT "monitor_region_statuses_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "result_counts" ADD CONSTRAINT "result_counts_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "latency_buckets" ADD CONSTRAINT "latency_buckets_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
