import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { useInfiniteQuery } from "@connectrpc/connect-query";
import { timeOrDurationBack } from "@vigil/domain/audit-log";
import { AuditLogService, type AuditLogEntry } from "@vigil/proto/account";
import { useMemo, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { refusalOfError } from "../../api";
import { Field, FormMessage, Page } from "../../ui";
import { Table, when } from "../../controls";

/** A page of entries: enough to read at once on a phone, few enough to answer fast. */
const PAGE_SIZE = 25;
const FILTERS = ["since", "actor", "action", "target"] as const;
const SINCE = { "": "Any time", "1h": "Last hour", "1d": "Last day", "7d": "Last 7 days", "30d": "Last 30 days" } as const;

/** Who made the change: a key by its prefix and name, a person by email, the operator's admin command. */
const who = (e: AuditLogEntry) =>
  e.actorType === "api_key" ? `key ${e.apiKeyPrefix}… (${e.apiKeyName || "unnamed"})` : e.actorType === "user" ? e.userEmail : "operator (admin command)";

/** The method's last part (CreateStatusPage) reads better than its full name; HTTP routes stay whole. */
const actionOf = (method: string) => method.slice(method.lastIndexOf("/") + 1) || method;

/** The workspace's audit log (owners and admins), newest first; the filters live in the address, so a view can be shared. */
export default function AuditLog() {
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ""])) as Record<(typeof FILTERS)[number], string>;
  // The duration is turned into a time once per filter, so that the query's key stays the same while it is shown.
  const since = useMemo(() => timeOrDurationBack(filter.since, new Date()), [filter.since]);
  const entries = useInfiniteQuery(
    AuditLogService.method.listAuditLogEntries,
    {
      since: since ? timestampFromDate(since) : undefined,
      actor: filter.actor,
      action: filter.action,
      targetKind: filter.target,
      limit: PAGE_SIZE,
      cursor: "",
    },
    { pageParamKey: "cursor", getNextPageParam: (page) => page.nextCursor || undefined, retry: false },
  );
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(data.get(name) ?? "").trim();
      if (value) next.set(name, value);
    }
    setParams(next);
  };
  const refusal = entries.error ? refusalOfError(entries.error) : null;
  const rows = entries.data?.pages.flatMap((page) => page.entries) ?? [];

  return (
    <Page title="Audit log" wide>
      <form onSubmit={apply} className="filters" aria-label="Filters" key={params.toString()}>
        <div className="field">
          <label htmlFor="audit-since">Since</label>
          <select id="audit-since" name="since" defaultValue={filter.since}>
            {Object.entries(SINCE).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <Field name="actor" label="Actor" hint="A key's prefix or id, a person's email, or admin." defaultValue={filter.actor} error={refusal?.fields.actor} />
        <Field name="action" label="Action" hint="CreateStatusPage, or a method's full name." defaultValue={filter.action} error={refusal?.fields.action} />
        <Field name="target" label="Target kind" hint="StatusPage, HTTPMonitor, Notification…" defaultValue={filter.target} error={refusal?.fields.targetKind} />
        <button type="submit">Show</button>
      </form>
      {refusal && <FormMessage message={refusal.message} />}
      {entries.data && rows.length === 0 && <p>No entry matches.</p>}
      {rows.length > 0 && (
        <div className="stacked">
          <Table caption="Audit log entries, newest first" head={["When", "Who", "Action", "Target", "Request"]}>
            {rows.map((e) => (
              <tr key={e.id} data-testid="audit-entry">
                <td>{when(e.at)}</td>
                <td>{who(e)}</td>
                <td title={e.method}>{actionOf(e.method)}</td>
                <td>
                  {e.targetKind} <code>{e.targetId}</code>
                </td>
                <td>
                  <code className="changes">{JSON.stringify(e.changes ?? {})}</code>
                </td>
              </tr>
            ))}
          </Table>
        </div>
      )}
      {entries.hasNextPage && (
        <button type="button" className="secondary" disabled={entries.isFetchingNextPage} onClick={() => void entries.fetchNextPage()}>
          Older
        </button>
      )}
    </Page>
  );
}
