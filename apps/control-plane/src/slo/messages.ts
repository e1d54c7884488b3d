import type { MessageInitShape } from "@bufbuild/protobuf";
import { SLO } from "@vigil/domain";
import type { GetMonitorSloResponseSchema, SloFiguresSchema } from "@vigil/proto";
import type { MonitorSlo, SloFigures } from "./figures";

const optional = (value: number | null) => value ?? undefined;

function figuresMessage(figures: SloFigures | null): MessageInitShape<typeof SloFiguresSchema> | undefined {
  if (!figures) return undefined;
  return {
    objective: figures.objective,
    thresholdMs: BigInt(figures.thresholdMs),
    total: BigInt(figures.counts.total),
    good: BigInt(figures.counts.good),
    actual: optional(figures.actual),
    budgetRemaining: optional(figures.budgetRemaining),
    burnRate1h: optional(figures.burnRate1h),
    burnRate6h: optional(figures.burnRate6h),
  };
}

/** GetMonitorSlo's answer. */
export function sloResponse(id: string, slo: MonitorSlo): MessageInitShape<typeof GetMonitorSloResponseSchema> {
  return { id, windowDays: BigInt(SLO.windowDays), availability: figuresMessage(slo.availability), latency: figuresMessage(slo.latency) };
}
