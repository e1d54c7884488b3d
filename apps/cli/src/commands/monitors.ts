import type { DescMessage } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { GRPC_HEALTH_STATUSES, MONITOR_KIND_NAMES, SUMMARY_TIME_RANGES, httpMethodCodec, monitorStatusCodec, numberComparatorCodec, periodicityCodec, regionCodec, timeRangeCodec } from "@vigil/domain";
import {
  DNSMonitorSchema,
  GRPCMonitorSchema,
  GetMonitorStatusResponseSchema,
  type GetMonitorStatusResponse,
  type GetMonitorSloResponse,
  type GetMonitorReportResponse,
  type ReportFigures,
  type SloFigures,
  HTTPMonitorSchema,
  HeartbeatMonitorSchema,
  ListMonitorOverviewsResponseSchema,
  MonitorSchema,
  MonitorService,
  TCPMonitorSchema,
  type MonitorStatus,
  type DNSMonitor,
  type GRPCMonitor,
  type HTTPMonitor,
  type HeartbeatMonitor,
  type ListMonitorOverviewsResponse,
  type TCPMonitor,
} from "@vigil/proto";
import type { VigilClient } from "@vigil/client";
import { Command, Option } from "commander";
import { stringify as stringifyCsv } from "csv-stringify/sync";
import { action, send, type Context } from "../context.js";
import { updateMaskOf, bodyOf, enumParser, fields, parseHeader, parseInteger, parseJsonAssertion, withFields, withPaging, type FieldFlag } from "../fields.js";
import { messageDetails, statusText, table, word } from "../output.js";
import { addCommands, call } from "../resource.js";
import { parseSeconds, showScreens, watch } from "../watch.js";
import { addResultCommands, regionOption } from "./results.js";

type Kind = "http" | "tcp" | "dns" | "grpc" | "heartbeat";
type AnyMonitor = HTTPMonitor | TCPMonitor | DNSMonitor | GRPCMonitor | HeartbeatMonitor;

const commonFields = (): FieldFlag[] => [
  fields.text("--name <name>", "name", "display name"),
  fields.enumeration("--periodicity <every>", "periodicity", periodicityCodec, "how often it is checked"),
  fields.enumerations("--region <region>", "regions", regionCodec, "a region it is checked from"),
  fields.integer("--timeout <ms>", "timeout", "time limit of a check in milliseconds"),
  fields.integer("--degraded-at <ms>", "degradedAt", "a check slower than this is degraded"),
  fields.integer("--retry <n>", "retry", "attempts before a check fails"),
  fields.text("--description <text>", "description", "a note about it"),
  ...fields.toggle("active", "active", "checked on schedule"),
  ...fields.toggle("public", "public", "shown on public pages"),
  fields.text("--alert-quorum <rule>", "alertQuorum", 'regions that must fail: half, majority, all or a number ("" for the deployment\'s)'),
  fields.integer("--confirmations <n>", "confirmations", "failing checks in a row before a region counts as failing (1-10)"),
  fields.integer("--recovery-confirmations <n>", "recoveryConfirmations", "good checks in a row before a failing region recovers (1-10)"),
  fields.list("--depends-on <ids>", "dependsOn", "monitors it depends on: while one has an open incident, its failures alert nothing ('' for none)"),
  fields.decimal("--availability-objective <percent>", "availabilityObjective", "SLO: percent of checks over 30 days that must not fail (50-99.999; 0: none)"),
  fields.integer("--latency-objective-ms <ms>", "latencyObjectiveMs", "SLO: the latency threshold, with --latency-objective-percent (1-120000; 0: none)"),
  fields.decimal("--latency-objective-percent <percent>", "latencyObjectivePercent", "SLO: percent of answered checks over 30 days at or under the threshold (50-99.999; 0: none)"),
];

/** Flags HTTP and gRPC monitors share: headers (a gRPC call's metadata) and the certificate warning. */
const headerField = () => fields.each("--header <name: value>", "headers", "a request header (a gRPC monitor's call metadata)", parseHeader);
const certificateField = () =>
  fields.integer("--certificate-expiry-days <days>", "certificateExpiryDays", "warn this many days before the TLS certificate expires, again at 7 and 1 (0: never; default 14)");

const httpFields = (): FieldFlag[] => [
  fields.text("--url <url>", "url", "the URL to request"),
  fields.enumeration("--method <method>", "method", httpMethodCodec, "HTTP method"),
  fields.text("--body <text>", "body", "request body"),
  headerField(),
  ...fields.toggle("follow-redirects", "followRedirects", "follow redirects"),
  ...fields.toggle("trace-header", "traceHeader", "send a W3C traceparent header (a new trace per check)"),
  certificateField(),
  fields.each("--expect-status <code>", "statusCodeAssertions", "the status code must equal this", (value) => ({
    target: parseInteger(value),
    comparator: numberComparatorCodec.encode("eq"),
  })),
  fields.each(
    "--expect-json <assertion>",
    "jsonBodyAssertions",
    'the JSON body must satisfy "<JSONPath> <comparator> [<target>]", e.g. "$.status eq ok" or "$.error not_exists"',
    parseJsonAssertion,
  ),
];

/** What only gRPC monitors have (their metadata and certificate warning are headerField and certificateField). */
const grpcFields = (): FieldFlag[] => [
  fields.text("--service <name>", "service", 'the health service asked about ("package.Service"; default "", the whole server)'),
  ...fields.toggle("tls", "tls", "connect over TLS, verifying the certificate (default off)"),
  fields.text("--expected-status <status>", "expectedStatus", `the health status that passes: ${GRPC_HEALTH_STATUSES.join(", ")} (default SERVING)`),
];

const heartbeatFields = (): FieldFlag[] => [
  fields.integer("--period <seconds>", "periodSeconds", "seconds between the job's runs (30 to 2678400); replaces --cron"),
  fields.text("--cron <expression>", "cron", 'when the job runs, as a cron expression ("0 3 * * *"); replaces --period'),
  fields.text("--timezone <zone>", "timezone", "the IANA time zone of --cron (default UTC)"),
  fields.integer("--grace <seconds>", "graceSeconds", "how late a run may be before the monitor fails (default 3600)"),
];

/** The fields a heartbeat shares with the checked kinds; it has no regions, periodicity, timeout or alerting overrides. */
const HEARTBEAT_COMMON = new Set(["name", "description", "active", "public", "dependsOn"]);

const uriField = (example: string) => fields.text("--uri <target>", "uri", `what to check (${example})`);

const KINDS = {
  http: { schema: HTTPMonitorSchema, fields: () => [...commonFields(), ...httpFields()] },
  tcp: { schema: TCPMonitorSchema, fields: () => [...commonFields(), uriField("host:port")] },
  dns: { schema: DNSMonitorSchema, fields: () => [...commonFields(), uriField("a domain name")] },
  grpc: { schema: GRPCMonitorSchema, fields: () => [...commonFields(), uriField("host:port"), ...grpcFields(), headerField(), certificateField()] },
  heartbeat: { schema: HeartbeatMonitorSchema, fields: () => [...commonFields().filter((f) => HEARTBEAT_COMMON.has(f.field)), ...heartbeatFields()] },
} satisfies Record<Kind, { schema: DescMessage; fields: () => FieldFlag[] }>;

/** GetMonitorSlo's answer: one row per objective the monitor has. */
function sloTable(ctx: Context, r: GetMonitorSloResponse): string {
  const percent = (value: number | undefined, digits: number) => (value === undefined ? "-" : `${value.toFixed(digits)}%`);
  const rate = (value: number | undefined) => (value === undefined ? "-" : `${value.toFixed(2)}x`);
  const objectives: [string, SloFigures | undefined][] = [
    ["availability", r.availability],
    ["latency", r.latency],
  ];
  const rows = objectives
    .filter((entry): entry is [string, SloFigures] => entry[1] !== undefined)
    .map(([name, f]) => [
      name,
      `${f.objective}%${name === "latency" ? ` under ${f.thresholdMs}ms` : ""}`,
      percent(f.actual, 3),
      `${f.good}/${f.total}`,
      percent(f.budgetRemaining, 1),
      rate(f.burnRate1h),
      rate(f.burnRate6h),
    ]);
  if (rows.length === 0) return "no objectives (set --availability-objective or --latency-objective-ms with --latency-objective-percent)\n";
  return table(ctx.out.colors, ["OBJECTIVE", "TARGET", `LAST ${r.windowDays}D`, "GOOD/CHECKS", "BUDGET LEFT", "BURN 1H", "BURN 6H"], rows);
}

const REPORT_COLUMNS = ["region", "availability_percent", "successful", "degraded", "failed", "p50_ms", "p90_ms", "p95_ms", "p99_ms"];

/** A report's figures as cells: availability with three decimals, empty without checks. */
function reportCells(region: string, f: ReportFigures | undefined): string[] {
  return [
    region,
    f?.availability === undefined ? "" : f.availability.toFixed(3),
    ...[f?.successful, f?.degraded, f?.failed, f?.p50, f?.p90, f?.p95, f?.p99].map((n) => String(n ?? 0n)),
  ];
}

const reportRows = (r: GetMonitorReportResponse) => [reportCells("all", r.overall), ...r.regions.map((x) => reportCells(word(regionCodec, x.region), x.figures))];

/** GetMonitorReport as CSV (RFC 4180 through csv-stringify): the month's figures, all regions first. */
function reportCsv(r: GetMonitorReportResponse): string {
  return stringifyCsv([["month", ...REPORT_COLUMNS, "downtime_seconds", "incidents"], ...reportRows(r).map((row) => [r.month, ...row, String(r.downtimeSeconds), String(r.incidents.length)])]);
}

function reportTable(ctx: Context, r: GetMonitorReportResponse): string {
  const head = `${r.name} (${r.id}), ${r.month}: downtime ${r.downtimeSeconds}s, ${r.incidents.length} incident(s); percentiles within ${(r.percentileRelativeError * 100).toFixed(1)}%\n`;
  const figures = table(ctx.out.colors, REPORT_COLUMNS.map((c) => c.toUpperCase()), reportRows(r));
  if (r.incidents.length === 0) return head + figures;
  const incidents = table(
    ctx.out.colors,
    ["INCIDENT", "SEVERITY", "STARTED", "RESOLVED", "IN MONTH"],
    r.incidents.map((i) => [i.id, i.severity, i.startedAt ? timestampDate(i.startedAt).toISOString() : "", i.resolvedAt ? timestampDate(i.resolvedAt).toISOString() : "open", `${i.durationSeconds}s`]),
  );
  return `${head}${figures}\n${incidents}`;
}

/** The overviews of a page as a table. */
function overviewTable(ctx: Context, r: ListMonitorOverviewsResponse): string {
  const status = (value: MonitorStatus) => word(monitorStatusCodec, value);
  const uptime = (percent: number | undefined) => (percent === undefined ? "-" : `${percent.toFixed(2)}%`);
  const rows = r.monitors.map((m) => [
    m.id,
    m.kind,
    m.name,
    statusText(ctx.out.colors, status(m.status)) + (m.active ? "" : " (paused)"),
    m.regions.map((region) => `${word(regionCodec, region.region)}:${status(region.status)}`).join(","),
    m.lastLatencyMs === undefined ? "-" : `${Math.round(m.lastLatencyMs)}ms`,
    sparkline(m.hours.map((h) => h.p50)),
    uptime(m.uptime1d),
    uptime(m.uptime7d),
  ]);
  const header = ["ID", "TYPE", "NAME", "STATUS", "REGIONS", "LATENCY", "LAST 24H (MEDIAN)", "UPTIME 24H", "UPTIME 7D"];
  return pageOf(ctx, table(ctx.out.colors, header, rows), rows.length, r.totalSize);
}

const ofMonitors = { service: MonitorService, client: (client: VigilClient) => client.monitors };

/** Creates or updates a monitor of `kind` through its own method (createHTTPMonitor, …) and prints it. */
const callKind = (ctx: Context, kind: Kind, verb: "create" | "update", request: Record<string, unknown>) =>
  call(ctx, { ...ofMonitors, schema: KINDS[kind].schema }, verb, request, (r: { monitor?: AnyMonitor }) => monitorDetails(ctx, kind, r.monitor));

/** Every flag any kind takes: an update learns the kind from the API, and a flag the kind lacks is refused as an unknown field. */
const allFields = (): FieldFlag[] => [...commonFields(), ...httpFields(), uriField("host:port or a domain name"), ...grpcFields(), ...heartbeatFields()];

function monitorDetails(ctx: Context, kind: Kind, monitor: AnyMonitor | undefined): string {
  return messageDetails(ctx.out.colors, KINDS[kind].schema as DescMessage, monitor as never, [["type", kind]]);
}

function monitorRow(ctx: Context, kind: Kind, monitor: AnyMonitor): string[] {
  if (monitor.$typeName === "monitor.v1.HeartbeatMonitor") {
    const every = monitor.cron ? `${monitor.cron} (${monitor.timezone})` : `${String(monitor.periodSeconds ?? "")}s`;
    const status = statusText(ctx.out.colors, word(monitorStatusCodec, monitor.status));
    return [monitor.id, kind, monitor.name ?? "", monitor.pingUrl, every, "", String(monitor.active ?? ""), status];
  }
  const target = kind === "http" ? (monitor as HTTPMonitor).url : (monitor as TCPMonitor | DNSMonitor | GRPCMonitor).uri;
  return [
    monitor.id,
    kind,
    monitor.name ?? "",
    target ?? "",
    word(periodicityCodec, monitor.periodicity),
    monitor.regions.map((region) => word(regionCodec, region)).join(","),
    String(monitor.active ?? ""),
    statusText(ctx.out.colors, word(monitorStatusCodec, monitor.status)),
  ];
}

async function kindOf(ctx: Context, id: string): Promise<Kind> {
  const { monitor } = await ctx.client.monitors.getMonitor({ id });
  const kind = monitor?.config.case;
  if (!kind) throw new Error(`monitor ${id} has no configuration the CLI knows`);
  return kind;
}

/** A table of one page, with a hint when the workspace has more. */
const pageOf = (ctx: Context, shown: string, rows: number, total: number) =>
  rows < total ? `${shown}\n${ctx.out.colors.dim(`${rows} of ${total}; see --limit and --offset`)}` : shown;

const BLOCKS = "▁▂▃▄▅▆▇█";

/** Values as a line of block characters scaled to their highest; a space where there is none (0). */
const sparkline = (values: number[]) => {
  const highest = Math.max(1, ...values);
  return values.map((v) => (v > 0 ? BLOCKS[Math.min(BLOCKS.length - 1, Math.floor((v / highest) * BLOCKS.length))] : " ")).join("");
};

/** Each region's status and, for HTTPS and gRPC TLS monitors, the certificate its newest check saw: when the chain expires, days left, issuer. */
function statusTable(ctx: Context, regions: GetMonitorStatusResponse["regions"]): string {
  const rows = regions.map(({ region, status, certificate }) => [
    word(regionCodec, region),
    statusText(ctx.out.colors, word(monitorStatusCodec, status)),
    certificate?.chainNotAfter ? timestampDate(certificate.chainNotAfter).toISOString().slice(0, 10) : "-",
    certificate ? String(certificate.daysLeft) : "-",
    certificate?.issuer || "-",
  ]);
  return table(ctx.out.colors, ["REGION", "STATUS", "CERT EXPIRES", "DAYS LEFT", "ISSUER"], rows);
}

export function monitorsCommand(): Command {
  const monitors = new Command("monitors").description("HTTP, TCP, DNS, gRPC and heartbeat monitors");

  withPaging(monitors.command("list").description("list monitors")).action(
    action(async (ctx, options: { limit?: number; offset?: number }) => {
      await send(ctx, MonitorService.method.listMonitors, ctx.client.monitors.listMonitors, { ...options }, (r) => {
        const rows = [
          ...r.httpMonitors.map((m) => monitorRow(ctx, "http", m)),
          ...r.tcpMonitors.map((m) => monitorRow(ctx, "tcp", m)),
          ...r.dnsMonitors.map((m) => monitorRow(ctx, "dns", m)),
          ...r.grpcMonitors.map((m) => monitorRow(ctx, "grpc", m)),
          ...r.heartbeatMonitors.map((m) => monitorRow(ctx, "heartbeat", m)),
        ];
        return pageOf(ctx, table(ctx.out.colors, ["ID", "TYPE", "NAME", "TARGET", "EVERY", "REGIONS", "ACTIVE", "STATUS"], rows), rows.length, r.totalSize);
      });
    }),
  );

  // A command of its own, not a flag of `list`: another RPC, other columns and another JSON shape.
  withPaging(monitors.command("overview").description("each monitor's status now, per region, with its last latency, last 24 hours and uptimes"))
    .option("--watch", "keep the page current as its monitors are checked or changed, until Ctrl-C (WatchMonitorOverviews)")
    .action(
      action(async (ctx, options: { limit?: number; offset?: number; watch?: boolean }) => {
        const page = { limit: options.limit, offset: options.offset };
        const render = (r: ListMonitorOverviewsResponse) => ctx.out.renderMessage(ListMonitorOverviewsResponseSchema, r, () => overviewTable(ctx, r));
        if (!options.watch) {
          ctx.out.write(render(await ctx.client.monitors.listMonitorOverviews(page)));
          return;
        }
        await showScreens(ctx.out, () => `live, at ${new Date().toLocaleTimeString()}`, async function* (signal) {
          let shown = await ctx.client.monitors.listMonitorOverviews(page, { signal });
          yield render(shown);
          for await (const message of ctx.client.monitors.watchMonitorOverviews({ changedSince: shown.changeToken }, { signal })) {
            if (message.reload) shown = await ctx.client.monitors.listMonitorOverviews(page, { signal });
            else if (message.monitors.some((m) => shown.monitors.some((o) => o.id === m.id))) {
              const changed = new Map(message.monitors.map((m) => [m.id, m]));
              shown = { ...shown, monitors: shown.monitors.map((m) => changed.get(m.id) ?? m) };
            } else continue;
            yield render(shown);
          }
        });
      }),
    );

  monitors
    .command("get")
    .description("show one monitor")
    .argument("<id>", "monitor id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, MonitorService.method.getMonitor, ctx.client.monitors.getMonitor, { id }, ({ monitor }) => {
          const config = monitor?.config;
          return config?.case ? monitorDetails(ctx, config.case, config.value) : "";
        });
      }),
    );

  const create = monitors.command("create").description("create a monitor: vigil monitors create http|tcp|dns|grpc|heartbeat [flags]");
  for (const [kind, spec] of Object.entries(KINDS)) {
    const flags = spec.fields();
    withFields(create.command(kind).description(kind === "heartbeat" ? "create a heartbeat monitor, which a job pings (vigil ping)" : kind === "grpc" ? "create a gRPC health-check monitor" : `create a ${MONITOR_KIND_NAMES[kind as Kind]} monitor`), flags).action(
      action(async (ctx, options: Record<string, unknown>) => void (await callKind(ctx, kind as Kind, "create", { monitor: await bodyOf(flags, options) }))),
    );
  }

  const updateFlags = allFields();
  withFields(monitors.command("update").description("change fields of a monitor; only the fields given change").argument("<id>", "monitor id"), updateFlags, true).action(
    action(async (ctx, id: string, options: Record<string, unknown>) => {
      const monitor = await bodyOf(updateFlags, options);
      // An empty list is no change without a mask: `--depends-on ''` clears, so it goes under one.
      const clear = Array.isArray(monitor.dependsOn) && monitor.dependsOn.length === 0 ? [options.clear, "dependsOn"].filter(Boolean).join(",") : options.clear;
      await callKind(ctx, await kindOf(ctx, id), "update", { id, monitor, updateMask: updateMaskOf(monitor, clear) });
    }),
  );

  addCommands(monitors, { ...ofMonitors, schema: MonitorSchema, noun: "monitor", field: "monitor", commands: { delete: "delete a monitor" } });

  monitors
    .command("trigger")
    .description("check a monitor now in each of its regions")
    .argument("<id>", "monitor id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, MonitorService.method.triggerMonitor, ctx.client.monitors.triggerMonitor, { id }, () => `triggered a check of monitor ${id}`);
      }),
    );

  monitors
    .command("status")
    .description("the monitor's status in each region")
    .argument("<id>", "monitor id")
    .option("--watch", "refresh until Ctrl-C (in place on a terminal)")
    .option("--interval <seconds>", "refresh interval of --watch", parseSeconds, 5)
    .action(
      action(async (ctx, id: string, options: { watch?: boolean; interval: number }) => {
        const render = async (signal?: AbortSignal) => {
          const response = await ctx.client.monitors.getMonitorStatus({ id }, { signal });
          return ctx.out.renderMessage(GetMonitorStatusResponseSchema, response, () => statusTable(ctx, response.regions));
        };
        if (options.watch) await watch(ctx.out, options.interval, render);
        else ctx.out.write(await render());
      }),
    );

  monitors
    .command("slo")
    .description("the monitor's objectives over 30 days: the figure, the error budget left and the burn rates over 1 h and 6 h")
    .argument("<id>", "monitor id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, MonitorService.method.getMonitorSlo, ctx.client.monitors.getMonitorSlo, { id }, (r) => sloTable(ctx, r));
      }),
    );

  monitors
    .command("report")
    .description("a month's availability per region and overall, incidents, downtime and latency percentiles")
    .argument("<id>", "monitor id")
    .requiredOption("--month <YYYY-MM>", "the UTC month, e.g. 2026-11")
    .option("--csv", "as CSV: one row for all regions, then one per region (incidents stay in the JSON form)")
    .action(
      action(async (ctx, id: string, options: { month: string; csv?: boolean }) => {
        if (options.csv) {
          ctx.out.write(reportCsv(await ctx.client.monitors.getMonitorReport({ id, month: options.month })));
          return;
        }
        await send(ctx, MonitorService.method.getMonitorReport, ctx.client.monitors.getMonitorReport, { id, month: options.month }, (r) => reportTable(ctx, r));
      }),
    );

  monitors
    .command("summary")
    .description("checks and latency percentiles over a time range")
    .argument("<id>", "monitor id")
    .addOption(
      new Option("--range <range>", `time range: ${SUMMARY_TIME_RANGES.join(", ")}`).argParser(enumParser({ ...timeRangeCodec, values: SUMMARY_TIME_RANGES })).default(timeRangeCodec.encode("1d"), "1d"),
    )
    .addOption(regionOption())
    .action(
      action(async (ctx, id: string, options: { range: number; region?: number[] }) => {
        const request = { id, timeRange: options.range, regions: options.region };
        await send(ctx, MonitorService.method.getMonitorSummary, ctx.client.monitors.getMonitorSummary, request, (r) =>
          table(
            ctx.out.colors,
            ["RANGE", "SUCCESSFUL", "DEGRADED", "FAILED", "P50", "P75", "P90", "P95", "P99", "LAST CHECK"],
            [
              [
                word(timeRangeCodec, r.timeRange),
                ...[r.totalSuccessful, r.totalDegraded, r.totalFailed].map(String),
                ...[r.p50, r.p75, r.p90, r.p95, r.p99].map((ms) => `${ms}ms`),
                r.lastPingAt ? timestampDate(r.lastPingAt).toISOString() : "never",
              ],
            ],
          ),
        );
      }),
    );

  addResultCommands(monitors);
  return monitors;
}
