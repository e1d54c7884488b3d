import type { PrismaClient } from "@vigil/db";
import { registry } from "./registry";
import { updateMonitorGauge } from "./monitor-gauge";
import { updatePipelineGauges, type PipelineSource } from "./pipeline-gauges";

/**
 * The Prometheus text exposition of this process, with the queue and stream gauges read from Redis just now, and
 * the monitors by kind and status from the database (when given one).
 */
export async function scrape(source: PipelineSource, prisma?: PrismaClient): Promise<{ contentType: string; body: string }> {
  await Promise.all([updatePipelineGauges(source), prisma ? updateMonitorGauge(prisma) : undefined]);
  return { contentType: registry.contentType, body: await registry.metrics() };
}
