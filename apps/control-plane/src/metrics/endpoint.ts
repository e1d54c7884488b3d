import { registry } from "./registry";
import { updatePipelineGauges, type PipelineSource } from "./pipeline-gauges";

/** The Prometheus text exposition of this process, with the queue and stream gauges read from Redis just now. */
export async function scrape(source: PipelineSource): Promise<{ contentType: string; body: string }> {
  await updatePipelineGauges(source);
  return { contentType: registry.contentType, body: await registry.metrics() };
}
