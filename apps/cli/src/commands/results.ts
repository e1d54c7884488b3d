import { timestampDate } from "@bufbuild/protobuf/wkt";
import { monitorStatusCodec, regionCodec, timeRangeCodec } from "@vigil/domain";
import { MonitorService, type TimeseriesBucket } from "@vigil/proto";
import { plot, blue, lightred, yellow } from "asciichart";
import { Command, Option } from "commander";
import { action, send } from "../context.js";
import { enumParser, parseInteger } from "../fields.js";
import { isoTime, statusText, table, word, type Colors } from "../output.js";

/** --region, repeatable: only these regions (all when not given). */
export const regionOption = () =>
  new Option("--region <region>", "only this region (repeatable)").argParser((value: string, previous: number[] = []) => [...previous, enumParser(regionCodec)(value)]);

/** `vigil monitors results` and `vigil monitors chart`. */
export function addResultCommands(monitors: Command): void {
  monitors
    .command("results")
    .description("a monitor's check results, newest first")
    .argument("<id>", "monitor id")
    .addOption(regionOption())
    .option("--limit <n>", "at most this many (1 to 100, default 50)", parseInteger)
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(
      action(async (ctx, id: string, options: { region?: number[]; limit?: number; cursor?: string }) => {
        const request = { id, regions: options.region, limit: options.limit, cursor: options.cursor };
        await send(ctx, MonitorService.method.listCheckResults, ctx.client.monitors.listCheckResults, request, (r) => {
          const rows = r.results.map((result) => [
            isoTime(result.time),
            word(regionCodec, result.region),
            statusText(ctx.out.colors, word(monitorStatusCodec, result.status)),
            result.statusCode ? String(result.statusCode) : "",
            `${Math.round(result.latencyMs)}ms`,
            result.traceId,
            result.failureReason ? `${result.failureReason}: ${result.error}` : "",
          ]);
          const page = table(ctx.out.colors, ["TIME", "REGION", "STATUS", "CODE", "LATENCY", "TRACE", "FAILURE"], rows);
          return r.nextCursor ? `${page}\n\nmore: --cursor ${r.nextCursor}` : page;
        });
      }),
    );

  monitors
    .command("chart")
    .description("a chart of a monitor's latency percentiles (p50, p95, p99) over a time range")
    .argument("<id>", "monitor id")
    .addOption(
      new Option("--range <range>", `time range: ${timeRangeCodec.values.join(", ")}`).argParser(enumParser(timeRangeCodec)).default(timeRangeCodec.encode("1d"), "1d"),
    )
    .addOption(regionOption())
    .action(
      action(async (ctx, id: string, options: { range: number; region?: number[] }) => {
        const request = { id, timeRange: options.range, regions: options.region };
        await send(ctx, MonitorService.method.getMonitorTimeseries, ctx.client.monitors.getMonitorTimeseries, request, (r) =>
          latencyChart(ctx.out.colors, r.buckets, Number(r.bucketSeconds), process.stdout.columns),
        );
      }),
    );
}

/** Room the y axis' labels take on each line. */
const LABEL_COLUMNS = 14;
const PERCENTILES = [
  { name: "p50", color: blue, of: (b: TimeseriesBucket) => b.p50 },
  { name: "p95", color: yellow, of: (b: TimeseriesBucket) => b.p95 },
  { name: "p99", color: lightred, of: (b: TimeseriesBucket) => b.p99 },
] as const;

/**
 * The percentiles as lines, one column per bucket; where buckets outnumber the terminal's columns,
 * each column shows the slowest of the buckets it stands for, so that no spike is lost.
 */
export function latencyChart(colors: Colors, buckets: TimeseriesBucket[], bucketSeconds: number, columns = 80): string {
  const checks = buckets.reduce((sum, b) => sum + b.count, 0n);
  if (checks === 0n) return "no checks in this range";
  const perColumn = Math.ceil(buckets.length / Math.max(10, columns - LABEL_COLUMNS));
  const series = PERCENTILES.map(({ of }) =>
    Array.from({ length: Math.ceil(buckets.length / perColumn) }, (_, i) => Math.max(...buckets.slice(i * perColumn, (i + 1) * perColumn).map((b) => Number(of(b))))),
  );
  const chart = plot(series, {
    height: 12,
    colors: colors.isColorSupported ? PERCENTILES.map((p) => p.color) : undefined,
    format: (ms) => `${Math.round(ms)}ms`.padStart(LABEL_COLUMNS - 3),
  });
  const failed = buckets.reduce((sum, b) => sum + b.failed, 0n);
  const legend = PERCENTILES.map((p) => (colors.isColorSupported ? `${p.color}${p.name}\u001b[0m` : p.name)).join("  ");
  return [
    chart,
    `${isoTime(buckets[0]!.start)} to ${isoTime(buckets.at(-1)!.start)}, ${perColumn * bucketSeconds / 60} min a column (0 where no check got an answer)`,
    `${legend}  ${checks} checks, ${failed} failed`,
  ].join("\n");
}

export function regionsCommand(): Command {
  return new Command("regions").description("regions: their agents, checks per minute and queues").action(
    action(async (ctx) => {
      await send(ctx, MonitorService.method.listRegions, ctx.client.monitors.listRegions, {}, (r) =>
        table(
          ctx.out.colors,
          ["REGION", "AGENTS", "LAST SEEN", "CHECKS/MIN", "QUEUE", "OLDEST"],
          r.regions.map((region) => [
            word(regionCodec, region.region),
            String(region.agents.length),
            region.lastSeenAt ? timestampDate(region.lastSeenAt).toISOString() : "never",
            region.checksPerMinute.toFixed(1),
            String(region.queueDepth),
            `${Math.round(region.oldestCheckAgeSeconds)}s`,
          ]),
        ),
      );
    }),
  );
}
