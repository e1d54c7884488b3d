import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { nextOccurrences, recurrenceProblem, type Occurrence } from "@vigil/domain/maintenance";
import { MaintenanceService, MonitorService, type MaintenanceWindow } from "@vigil/proto";
import { StatusPageService, type StatusPage } from "@vigil/proto/status-page";
import { Fragment, useState } from "react";
import { useForm } from "react-hook-form";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { Table, useAction, useClient, when } from "../../controls";
import { HookField, useApiErrors } from "../status-pages/forms";

const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const;

/** The recurrence presets of the form: each an RRULE of the start's day, or the rule typed in. */
const PRESETS = [
  { value: "once", label: "Once" },
  { value: "daily", label: "Every day" },
  { value: "weekly", label: "Every week, on the start's weekday" },
  { value: "monthly", label: "Every month, on the start's day" },
  { value: "custom", label: "Custom RRULE" },
] as const;
type Preset = (typeof PRESETS)[number]["value"];

/** The RRULE of a preset for a start (its weekday and day of the month in UTC, as the form takes times). */
function ruleOf(preset: Preset, start: Date, custom: string): string {
  if (preset === "daily") return "FREQ=DAILY";
  if (preset === "weekly") return `FREQ=WEEKLY;BYDAY=${WEEKDAYS[start.getUTCDay()]}`;
  if (preset === "monthly") return `FREQ=MONTHLY;BYMONTHDAY=${start.getUTCDate()}`;
  return preset === "custom" ? custom.trim() : "";
}

/** A datetime-local value read as UTC: the form's times are UTC, as the public page shows them. */
const utc = (value: string): Date | null => (value ? new Date(`${value}:00Z`) : null);
const span = (o: { startsAt?: Parameters<typeof timestampDate>[0]; endsAt?: Parameters<typeof timestampDate>[0] }) => `${when(o.startsAt)} – ${when(o.endsAt)}`;

/** Maintenance windows of the workspace: the list, and for editors a form with recurrence presets and a preview. */
export default function Maintenance() {
  const windows = useQuery(MaintenanceService.method.listMaintenanceWindows, { limit: 100 }, { retry: false });
  const role = useRole();
  const mayEdit = !!role && roleCan(role, "write");
  const action = useAction();
  const client = useClient(MaintenanceService);
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <Page title="Maintenance" wide>
      {windows.error && <FormMessage message={windows.error.message} />}
      <p className="hint">During a window its monitors are checked but open no incident and alert nobody; a failure still going on at its end alerts then. The status page components it names show under maintenance.</p>
      {windows.data && windows.data.maintenances.length === 0 && <p>No maintenance window yet.</p>}
      {windows.data && windows.data.maintenances.length > 0 && (
        <Table caption="Maintenance windows" head={["Title", "First occurrence", "Repeats", "Next", "Monitors", "Components", ""]}>
          {windows.data.maintenances.map((w: MaintenanceWindow) => (
            <Fragment key={w.id}>
            <tr data-testid="maintenance">
              <td>{w.title}</td>
              <td>{span(w)}</td>
              <td>{w.recurrence ? `${w.recurrence} (${w.timezone})` : "no"}</td>
              <td>{w.nextOccurrences[0] ? span(w.nextOccurrences[0]) : "none to come"}</td>
              <td>{w.monitorIds.length}</td>
              <td>{w.pageComponentIds.length}</td>
              <td>
                {mayEdit && (
                  <>
                    <button type="button" className="secondary" aria-expanded={editing === w.id} onClick={() => setEditing(editing === w.id ? null : w.id)}>
                      Edit {w.title}
                    </button>
                    <button type="button" className="secondary" onClick={() => void action.run(() => client.deleteMaintenanceWindow({ id: w.id }), `Delete the maintenance window ${w.title}?`)}>
                      Delete {w.title}
                    </button>
                  </>
                )}
              </td>
            </tr>
            {editing === w.id && (
              <tr>
                <td colSpan={7}>
                  <WindowForm window={w} onDone={() => setEditing(null)} />
                </td>
              </tr>
            )}
            </Fragment>
          ))}
        </Table>
      )}
      {action.message}
      {mayEdit && <WindowForm />}
    </Page>
  );
}

interface Fields {
  title: string;
  message: string;
  startsAt: string;
  endsAt: string;
  timezone: string;
  preset: Preset;
  recurrence: string;
}

/** A datetime-local value (UTC) of an answer's time. */
const local = (at: Parameters<typeof timestampDate>[0] | undefined) => (at ? timestampDate(at).toISOString().slice(0, 16) : "");

/** The preset a stored rule reads as: "custom" unless it is one of the presets for its start. */
function presetOf(window: MaintenanceWindow): Preset {
  const rule = window.recurrence ?? "";
  if (rule === "") return "once";
  const start = window.startsAt ? timestampDate(window.startsAt) : new Date(0);
  return (["daily", "weekly", "monthly"] as const).find((preset) => ruleOf(preset, start, "") === rule) ?? "custom";
}

/** Schedules a window, or with `window` changes that one (every field, the lists replaced). */
function WindowForm({ window, onDone }: { window?: MaintenanceWindow; onDone?: () => void }) {
  const client = useClient(MaintenanceService);
  const monitors = useQuery(MonitorService.method.listMonitors, { limit: 100 }, { retry: false });
  const pages = useQuery(StatusPageService.method.listStatusPages, { limit: 100 }, { retry: false });
  const [monitorIds, setMonitorIds] = useState<string[]>(window ? [...window.monitorIds] : []);
  const [componentIds, setComponentIds] = useState<string[]>(window ? [...window.pageComponentIds] : []);
  const form = useForm<Fields>({
    defaultValues: window
      ? { title: window.title ?? "", message: window.message ?? "", startsAt: local(window.startsAt), endsAt: local(window.endsAt), timezone: window.timezone || "UTC", preset: presetOf(window), recurrence: window.recurrence ?? "" }
      : { title: "", message: "", startsAt: "", endsAt: "", timezone: "UTC", preset: "once", recurrence: "" },
  });
  const api = useApiErrors(form, ["title", "message", "startsAt", "endsAt", "timezone", "recurrence"]);
  const values = form.watch();
  const start = utc(values.startsAt);
  const end = utc(values.endsAt);
  const rule = start ? ruleOf(values.preset, start, values.recurrence) : "";
  const problem = rule ? recurrenceProblem(rule) : null;
  let preview: Occurrence[] = [];
  let previewProblem: string | null = problem;
  if (start && end && end > start && !problem) {
    try {
      preview = nextOccurrences({ startsAt: start, endsAt: end, recurrence: rule, timezone: values.timezone || "UTC" }, new Date(0), 5);
    } catch (error) {
      previewProblem = (error as Error).message;
    }
  }
  const toggle = (list: string[], id: string, on: boolean) => (on ? [...list, id] : list.filter((x) => x !== id));
  const monitorList = [
    ...(monitors.data?.httpMonitors ?? []),
    ...(monitors.data?.tcpMonitors ?? []),
    ...(monitors.data?.dnsMonitors ?? []),
    ...(monitors.data?.grpcMonitors ?? []),
    ...(monitors.data?.heartbeatMonitors ?? []),
  ];
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      const maintenance = {
        title: fields.title,
        message: fields.message,
        startsAt: start ? timestampFromDate(start) : undefined,
        endsAt: end ? timestampFromDate(end) : undefined,
        recurrence: rule,
        timezone: fields.timezone,
        monitorIds,
        pageComponentIds: componentIds,
      };
      if (window) {
        // A mask's paths are the proto's names: the JSON form cannot carry camelCase ones.
        await client.updateMaintenanceWindow({ id: window.id, maintenance, updateMask: { paths: Object.keys(maintenance).map((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) } });
        onDone?.();
        return;
      }
      await client.createMaintenanceWindow({ maintenance });
      form.reset();
      setMonitorIds([]);
      setComponentIds([]);
    }),
  );
  const name = window ? `Edit ${window.title}` : "Schedule maintenance";
  return (
    <>
      {!window && <h2>Schedule maintenance</h2>}
      <form onSubmit={(e) => void submit(e)} noValidate aria-label={name}>
        <FormMessage message={api.message} />
        <HookField form={form} name="title" label="Maintenance title" />
        <HookField form={form} name="message" label="Message" hint="Markdown, shown on status pages." multiline />
        <HookField form={form} name="startsAt" label="Starts (UTC)" type="datetime-local" />
        <HookField form={form} name="endsAt" label="Ends (UTC)" type="datetime-local" />
        <HookField form={form} name="preset" label="Repeats" options={PRESETS} />
        {values.preset === "custom" && <HookField form={form} name="recurrence" label="RRULE" hint="RFC 5545, without DTSTART: FREQ=WEEKLY;BYDAY=SU" />}
        {values.preset !== "once" && <HookField form={form} name="timezone" label="Time zone" hint="IANA, e.g. Europe/Berlin: occurrences keep the start's wall-clock time there." />}
        <section aria-label="Next occurrences" className="markdown-preview">
          <p className="hint">Next occurrences</p>
          {previewProblem ? <p role="alert">{previewProblem}</p> : preview.length === 0 ? <p>Give a start before the end to see them.</p> : (
            <ol>
              {preview.map((o) => (
                <li key={o.startsAt.toISOString()}>{`${o.startsAt.toISOString().slice(0, 16).replace("T", " ")} – ${o.endsAt.toISOString().slice(0, 16).replace("T", " ")} UTC`}</li>
              ))}
            </ol>
          )}
        </section>
        <fieldset>
          <legend>Monitors</legend>
          {monitorList.length === 0 && <p className="hint">No monitors.</p>}
          {monitorList.map((m) => (
            <label className="field check" key={m.id}>
              <input type="checkbox" checked={monitorIds.includes(m.id)} onChange={(e) => setMonitorIds(toggle(monitorIds, m.id, e.target.checked))} /> {m.name}
            </label>
          ))}
        </fieldset>
        {(pages.data?.statusPages ?? []).map((p) => (
          <PageComponents key={p.id} page={p} chosen={componentIds} onChange={(id, on) => setComponentIds(toggle(componentIds, id, on))} />
        ))}
        <button type="submit" disabled={form.formState.isSubmitting}>
          {window ? "Save maintenance" : "Schedule"}
        </button>
      </form>
    </>
  );
}

function PageComponents({ page, chosen, onChange }: { page: StatusPage; chosen: string[]; onChange: (id: string, on: boolean) => void }) {
  const components = useQuery(StatusPageService.method.listStatusPageComponents, { pageId: page.id, limit: 100 }, { retry: false });
  const list = components.data?.components ?? [];
  if (list.length === 0) return null;
  return (
    <fieldset>
      <legend>{`Components of ${page.title}`}</legend>
      {list.map((c) => (
        <label className="field check" key={c.id}>
          <input type="checkbox" checked={chosen.includes(c.id)} onChange={(e) => onChange(c.id, e.target.checked)} /> {c.name || "Monitor component"}
        </label>
      ))}
    </fieldset>
  );
}
