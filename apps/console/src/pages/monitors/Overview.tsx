import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { roleCan } from "@vigil/domain/accounts";
import { MonitorService, MonitorStatus, type ListMonitorOverviewsResponse, type MonitorOverview } from "@vigil/proto";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { regionName } from "../../monitors/regions";
import { StatusBadge, formatLatency, formatPercent, statusLabel } from "../../monitors/status";
import { useSignedIn } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { useClient } from "../../controls";
import { KIND_NAMES, type Kind } from "./monitor";
import { Sparkline } from "./Sparkline";

/** The API's largest page: a thousand monitors are ten calls, made at once. */
const PAGE = 100;
/** Waits before opening the watch again after it failed: doubling from a second, up to half a minute. */
const RETRY_MS = { first: 1_000, most: 30_000 };
/** Set once the rows are first on screen: bench/console-overview.ts reads it from the performance entries. */
export const RENDERED_MARK = "vigil:overview-rendered";

interface Overview {
  monitors: MonitorOverview[];
  changeToken: string;
}

type Client = ReturnType<typeof useClient<typeof MonitorService>>;

async function loadAll(client: Client): Promise<Overview> {
  const first = await client.listMonitorOverviews({ limit: PAGE });
  const offsets = Array.from({ length: Math.max(0, Math.ceil(first.totalSize / PAGE) - 1) }, (_, i) => (i + 1) * PAGE);
  const rest = await Promise.all(offsets.map((offset) => client.listMonitorOverviews({ limit: PAGE, offset })));
  return { monitors: [first, ...rest].flatMap((page: ListMonitorOverviewsResponse) => page.monitors), changeToken: first.changeToken };
}

const countOf = (n: number) => `${n} monitor${n === 1 ? "" : "s"}`;

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Every monitor of the workspace, kept current by WatchMonitorOverviews: the pages are loaded once, then the
 * stream sends the monitors that changed, which replace theirs; when it asks for a reload (monitors came or went,
 * the minute turned) the pages are loaded again before its next message is applied. A stream that fails is
 * opened again from the last token shown (docs/benchmarks.md, "Console overview", for why a stream and not polling).
 */
function useOverview(): { data: Overview | undefined; error: Error | null; live: boolean } {
  const client = useClient(MonitorService);
  const queries = useQueryClient();
  const { workspace } = useSignedIn();
  const key = useMemo(() => ["monitor-overviews", workspace?.slug], [workspace?.slug]);
  const query = useQuery({ queryKey: key, queryFn: () => loadAll(client) });
  const loaded = query.data !== undefined;
  /** Whether the watch is open; the page says so when it is not. */
  const [live, setLive] = useState(true);
  useEffect(() => {
    if (!loaded) return;
    const abort = new AbortController();
    void (async () => {
      for (let retryMs = RETRY_MS.first; !abort.signal.aborted; retryMs = Math.min(retryMs * 2, RETRY_MS.most)) {
        try {
          const changedSince = queries.getQueryData<Overview>(key)?.changeToken ?? "";
          for await (const message of client.watchMonitorOverviews({ changedSince }, { signal: abort.signal })) {
            retryMs = RETRY_MS.first;
            setLive(true);
            if (message.reload) await queries.refetchQueries({ queryKey: key, exact: true });
            else if (message.monitors.length > 0) {
              const changed = new Map(message.monitors.map((m) => [m.id, m]));
              queries.setQueryData<Overview>(key, (shown) => shown && { monitors: shown.monitors.map((m) => changed.get(m.id) ?? m), changeToken: message.changeToken });
            }
          }
        } catch {
          // Opened again below; the pages stay as they are meanwhile.
        }
        if (!abort.signal.aborted) setLive(false);
        await wait(retryMs, abort.signal);
      }
    })();
    return () => abort.abort();
  }, [loaded, client, queries, key]);
  return { data: query.data, error: query.error, live };
}

const STATUS_FILTERS = { up: MonitorStatus.ACTIVE, degraded: MonitorStatus.DEGRADED, down: MonitorStatus.ERROR, unknown: MonitorStatus.UNKNOWN } as const;
/** Worst first, so that a sort by status puts what is broken on top. */
const STATUS_ORDER: Record<MonitorStatus, number> = {
  [MonitorStatus.ERROR]: 0,
  [MonitorStatus.DEGRADED]: 1,
  [MonitorStatus.UNKNOWN]: 2,
  [MonitorStatus.UNSPECIFIED]: 2,
  [MonitorStatus.ACTIVE]: 3,
};
const KINDS = ["http", "tcp", "dns", "grpc"] as const;
const SORTS = {
  name: { label: "Name", compare: (a: MonitorOverview, b: MonitorOverview) => a.name.localeCompare(b.name) },
  status: { label: "Status (worst first)", compare: (a: MonitorOverview, b: MonitorOverview) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] },
  latency: { label: "Last latency (slowest first)", compare: (a: MonitorOverview, b: MonitorOverview) => (b.lastLatencyMs ?? -1) - (a.lastLatencyMs ?? -1) },
  uptime1d: { label: "Uptime 24 h (lowest first)", compare: (a: MonitorOverview, b: MonitorOverview) => (a.uptime1d ?? 101) - (b.uptime1d ?? 101) },
  uptime7d: { label: "Uptime 7 d (lowest first)", compare: (a: MonitorOverview, b: MonitorOverview) => (a.uptime7d ?? 101) - (b.uptime7d ?? 101) },
} as const;
type SortKey = keyof typeof SORTS;

/** The filters and sort, kept in the URL's search parameters so that a filtered view can be shared. */
function useFilters() {
  const [params, setParams] = useSearchParams();
  const set = (name: string, value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  const sort = params.get("sort") ?? "";
  return {
    status: params.get("status") ?? "",
    kind: params.get("kind") ?? "",
    region: params.get("region") ?? "",
    text: params.get("q") ?? "",
    sort: (sort in SORTS ? sort : "name") as SortKey,
    set,
  };
}

export default function Overview() {
  const { workspace } = useSignedIn();
  const { data, error, live } = useOverview();
  const filters = useFilters();
  const monitors = data?.monitors;
  const shown = useMemo(() => {
    if (!monitors) return [];
    const text = filters.text.trim().toLowerCase();
    const status = STATUS_FILTERS[filters.status as keyof typeof STATUS_FILTERS];
    return monitors
      .filter(
        (m) =>
          (status === undefined || m.status === status || (status === MonitorStatus.UNKNOWN && m.status === MonitorStatus.UNSPECIFIED)) &&
          (!filters.kind || m.kind === filters.kind) &&
          (!filters.region || m.regions.some((r) => regionName(r.region) === filters.region)) &&
          (!text || m.name.toLowerCase().includes(text) || m.target.toLowerCase().includes(text)),
      )
      .sort(SORTS[filters.sort].compare);
  }, [monitors, filters.text, filters.status, filters.kind, filters.region, filters.sort]);
  const regions = useMemo(() => [...new Set((monitors ?? []).flatMap((m) => m.regions.map((r) => regionName(r.region))))].sort(), [monitors]);

  const marked = useRef(false);
  useEffect(() => {
    if (monitors && !marked.current) {
      marked.current = true;
      performance.mark(RENDERED_MARK);
    }
  }, [monitors]);

  return (
    <Page title="Monitors" wide>
      {workspace && roleCan(workspace.role, "write") && (
        <p>
          <Link to="/monitors/new">New monitor</Link>
        </p>
      )}
      <form className="filters" role="search" aria-label="Filter monitors" onSubmit={(e) => e.preventDefault()}>
        <Choice id="filter-status" label="Status" value={filters.status} onChange={(v) => filters.set("status", v)} options={[["", "Any status"], ...Object.keys(STATUS_FILTERS).map((s) => [s, statusLabel(STATUS_FILTERS[s as keyof typeof STATUS_FILTERS])] as const)]} />
        <Choice id="filter-kind" label="Kind" value={filters.kind} onChange={(v) => filters.set("kind", v)} options={[["", "Any kind"], ...KINDS.map((k) => [k, KIND_NAMES[k]] as const)]} />
        <Choice id="filter-region" label="Region" value={filters.region} onChange={(v) => filters.set("region", v)} options={[["", "Any region"], ...regions.map((r) => [r, r] as const)]} />
        <div className="field">
          <label htmlFor="filter-text">Name or target</label>
          <input id="filter-text" type="search" value={filters.text} onChange={(e) => filters.set("q", e.target.value)} />
        </div>
        <Choice id="sort" label="Sort by" value={filters.sort} onChange={(v) => filters.set("sort", v === "name" ? "" : v)} options={Object.entries(SORTS).map(([k, s]) => [k, s.label] as const)} />
      </form>
      <FormMessage message={error ? error.message : null} />
      {!monitors ? (
        !error && <p role="status">Loading…</p>
      ) : (
        <>
          <p role="status" className="hint">
            {shown.length === monitors.length ? countOf(monitors.length) : `${shown.length} of ${countOf(monitors.length)}`}
            {!live && " · live updates interrupted, reconnecting…"}
          </p>
          <table className="overview">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Status by region</th>
                <th scope="col">Last latency</th>
                <th scope="col">Last 24 hours</th>
                <th scope="col">Uptime 24 h</th>
                <th scope="col">Uptime 7 d</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <Row key={m.id} monitor={m} />
              ))}
            </tbody>
          </table>
        </>
      )}
    </Page>
  );
}

/** Memoized: a message that changed one monitor renders one row. */
const Row = memo(function Row({ monitor: m }: { monitor: MonitorOverview }) {
  return (
    <tr data-monitor={m.id}>
      <th scope="row">
        <Link to={`/monitors/${m.id}`}>{m.name}</Link>
        {!m.active && <span className="hint"> (paused)</span>}
      </th>
      <td data-label="Kind">{KIND_NAMES[m.kind as Kind] ?? m.kind.toUpperCase()}</td>
      <td data-label="Status" className="badges">
        <StatusBadge status={m.status} />
        {m.regions.map((r) => (
          <StatusBadge key={r.region} status={r.status} region={regionName(r.region)} />
        ))}
      </td>
      <td data-label="Last latency">{formatLatency(m.lastLatencyMs)}</td>
      <td data-label="Last 24 hours">
        <Sparkline hours={m.hours.map((h) => ({ start: timestampDate(h.start!), count: h.count, failed: h.failed, p50: h.p50 }))} />
      </td>
      <td data-label="Uptime 24 h">{formatPercent(m.uptime1d === undefined ? undefined : m.uptime1d / 100)}</td>
      <td data-label="Uptime 7 d">{formatPercent(m.uptime7d === undefined ? undefined : m.uptime7d / 100)}</td>
    </tr>
  );
});

function Choice({ id, label, value, options, onChange }: { id: string; label: string; value: string; options: readonly (readonly [string, string])[]; onChange: (value: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
