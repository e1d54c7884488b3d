import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { INCIDENT_IMPACTS, INCIDENT_STATUSES, incidentSchema, markdownHtml } from "@vigil/domain/status-pages";
import { IncidentService, MonitorStatus } from "@vigil/proto";
import { StatusPageService, type StatusPage, type StatusPageComponent, type StatusPageIncident } from "@vigil/proto/status-page";
import { useState } from "react";
import { useForm, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import { Link, useParams } from "react-router";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { useAction, useClient, when } from "../../controls";
import { HookField, useApiErrors } from "./forms";

const IMPACT_WORDS: Record<(typeof INCIDENT_IMPACTS)[number], string> = {
  degraded_performance: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
};

/** A page's incidents written by people: each with its updates; editors and above write, update and resolve them. */
export default function Incidents() {
  const { id = "" } = useParams();
  const page = useQuery(StatusPageService.method.getStatusPage, { id }, { retry: false });
  const incidents = useQuery(StatusPageService.method.listStatusPageIncidents, { pageId: id, limit: 100 }, { retry: false });
  const components = useQuery(StatusPageService.method.listStatusPageComponents, { pageId: id, limit: 100 }, { retry: false });
  const role = useRole();
  const mayEdit = !!role && roleCan(role, "write");
  const statusPage = page.data?.statusPage;
  const error = page.error ?? incidents.error ?? components.error;
  return (
    <Page title={statusPage ? `Incidents of ${statusPage.title}` : "Incidents"} wide>
      {error && <FormMessage message={error.message} />}
      {statusPage && (
        <p>
          <Link to={`/status-pages/${statusPage.id}`}>Back to {statusPage.title}</Link> ·{" "}
          <a href={`/status/${statusPage.slug}/history`} target="_blank" rel="noreferrer">
            Open the public history
          </a>
        </p>
      )}
      {statusPage && incidents.data && components.data && (
        <>
          {incidents.data.incidents.length === 0 && <p>No incident written yet.</p>}
          <ol className="incident-list">
            {incidents.data.incidents.map((incident) => (
              <li key={incident.id}>
                <IncidentPanel incident={incident} components={components.data.components} mayEdit={mayEdit} />
              </li>
            ))}
          </ol>
          {mayEdit && <CreateIncident page={statusPage} components={components.data.components} />}
        </>
      )}
    </Page>
  );
}

/** A Markdown field with a live preview, rendered as the public page renders it (raw HTML shown as text, only web and mail links). */
function MarkdownField<T extends FieldValues>({ form, name, label, hint }: { form: UseFormReturn<T, unknown, unknown>; name: Path<T>; label: string; hint?: string }) {
  const text = String(form.watch(name) ?? "");
  return (
    <>
      <HookField form={form} name={name} label={label} hint={hint ?? "Markdown: **bold**, *italic*, lists, [links](https://example.com)."} multiline />
      {text && (
        <section className="markdown-preview" aria-label={`${label} preview`}>
          <p className="hint">Preview</p>
          <Markdown text={text} />
        </section>
      )}
    </>
  );
}

/** Markdown people wrote, rendered by markdownHtml (raw HTML escaped, only web and mail links), the one HTML set here. */
const Markdown = ({ text }: { text: string }) => <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;

const componentName = (c: StatusPageComponent) => c.name || (c.type === "monitor" ? "Monitor component" : "Static component");

/** The impact chosen for each of the page's components ("" when not affected), as the API takes them. */
function ImpactFields({ components, impacts, onChange }: { components: StatusPageComponent[]; impacts: Record<string, string>; onChange: (next: Record<string, string>) => void }) {
  if (components.length === 0) return <p className="hint">The page has no components to name.</p>;
  return (
    <fieldset>
      <legend>Affected components</legend>
      {components.map((c) => (
        <div className="field" key={c.id}>
          <label htmlFor={`impact-${c.id}`}>{componentName(c)}</label>
          <select id={`impact-${c.id}`} value={impacts[c.id] ?? ""} onChange={(e) => onChange({ ...impacts, [c.id]: e.target.value })}>
            <option value="">Not affected</option>
            {INCIDENT_IMPACTS.map((impact) => (
              <option key={impact} value={impact}>
                {IMPACT_WORDS[impact]}
              </option>
            ))}
          </select>
        </div>
      ))}
    </fieldset>
  );
}

const affected = (impacts: Record<string, string>) => Object.entries(impacts).flatMap(([componentId, impact]) => (impact ? [{ componentId, impact }] : []));

const newIncidentSchema = incidentSchema.pick({ title: true, status: true, message: true });

/**
 * The automatic incidents of the page's monitors (the workspace's newest 100) that a written
 * incident may tell of, or keep off the page.
 */
function AutomaticIncidentFields({ components, value, internal, onChange }: { components: StatusPageComponent[]; value: string; internal: boolean; onChange: (value: string, internal: boolean) => void }) {
  const incidents = useQuery(IncidentService.method.listIncidents, { limit: 100 }, { retry: false });
  const shown = new Map(components.flatMap((c) => (c.monitorId ? [[c.monitorId, componentName(c)] as const] : [])));
  const options = (incidents.data?.incidents ?? []).filter((i) => shown.has(i.monitorId));
  if (options.length === 0) return null;
  return (
    <fieldset>
      <legend>Automatic incident</legend>
      <div className="field">
        <label htmlFor="monitor-incident">Tells of</label>
        <p id="monitor-incident-hint" className="hint">
          The page then shows this incident in place of the one alerting opened.
        </p>
        <select id="monitor-incident" aria-describedby="monitor-incident-hint" value={value} onChange={(e) => onChange(e.target.value, e.target.value ? internal : false)}>
          <option value="">None</option>
          {options.map((i) => (
            <option key={i.id} value={i.id}>
              {`${shown.get(i.monitorId)}: ${i.severity === MonitorStatus.DEGRADED ? "degraded" : "outage"} since ${when(i.startedAt)}${i.resolvedAt ? " (resolved)" : ""}`}
            </option>
          ))}
        </select>
      </div>
      <label className="field check">
        <input type="checkbox" checked={internal} disabled={!value} onChange={(e) => onChange(value, e.target.checked)} /> Keep both off the page (internal)
      </label>
    </fieldset>
  );
}

function CreateIncident({ page, components }: { page: StatusPage; components: StatusPageComponent[] }) {
  const client = useClient(StatusPageService);
  const [impacts, setImpacts] = useState<Record<string, string>>({});
  const [automatic, setAutomatic] = useState({ monitorIncidentId: "", internal: false });
  const form = useForm({ resolver: zodResolver(newIncidentSchema), defaultValues: { title: "", status: "investigating" as const, message: "" } });
  const api = useApiErrors(form, ["title", "status", "message"]);
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      await client.createStatusPageIncident({ incident: { ...fields, ...automatic, pageId: page.id, components: affected(impacts) } });
      form.reset();
      setImpacts({});
      setAutomatic({ monitorIncidentId: "", internal: false });
    }),
  );
  return (
    <>
      <h2>Write an incident</h2>
      <form onSubmit={(e) => void submit(e)} noValidate aria-label="Write an incident">
        <FormMessage message={api.message} />
        <HookField form={form} name="title" label="Incident title" />
        <HookField form={form} name="status" label="Status" options={INCIDENT_STATUSES} />
        <MarkdownField form={form} name="message" label="Message" />
        <ImpactFields components={components} impacts={impacts} onChange={setImpacts} />
        <AutomaticIncidentFields
          components={components}
          value={automatic.monitorIncidentId}
          internal={automatic.internal}
          onChange={(monitorIncidentId, internal) => setAutomatic({ monitorIncidentId, internal })}
        />
        <button type="submit" disabled={form.formState.isSubmitting}>
          Publish incident
        </button>
      </form>
    </>
  );
}

function IncidentPanel({ incident, components, mayEdit }: { incident: StatusPageIncident; components: StatusPageComponent[]; mayEdit: boolean }) {
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const client = useClient(StatusPageService);
  const action = useAction();
  const title = incident.title ?? "";
  const names = new Map(components.map((c) => [c.id, componentName(c)]));
  return (
    <article className="incident-panel" aria-label={title} data-testid="incident">
      <div className="incident-head">
        <h2>{title}</h2>
        <p className="hint">
          {incident.status} · started {when(incident.createdAt)}
          {incident.resolvedAt && <> · resolved {when(incident.resolvedAt)}</>}
          {incident.internal && <> · internal</>}
        </p>
      </div>
      <p className="actions">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Close" : "Open"} {title}
        </button>
      </p>
      {open && (
        <>
          {incident.components.length > 0 && (
            <ul>
              {incident.components.map((c) => (
                <li key={c.componentId}>
                  {names.get(c.componentId) ?? c.componentId}: {IMPACT_WORDS[c.impact as (typeof INCIDENT_IMPACTS)[number]] ?? c.impact}
                </li>
              ))}
            </ul>
          )}
          <h3>Updates</h3>
          <ol className="updates">
            {incident.updates.map((u) => (
              <li key={u.id}>
                <p className="hint">
                  <strong>{u.status}</strong> · {when(u.createdAt)}
                </p>
                <Markdown text={u.message} />
              </li>
            ))}
          </ol>
          {incident.postmortem && (
            <>
              <h3>Postmortem</h3>
              <Markdown text={incident.postmortem} />
            </>
          )}
          {mayEdit && (
            <>
              <AddUpdate incident={incident} />
              <p className="actions">
                <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
                  Edit {title}
                </button>
                <button type="button" className="secondary" onClick={() => void action.run(() => client.deleteStatusPageIncident({ id: incident.id }), `Delete the incident ${title} and its updates?`)}>
                  Delete {title}
                </button>
              </p>
              {action.message}
              {editing && <EditIncident incident={incident} components={components} onDone={() => setEditing(false)} />}
            </>
          )}
        </>
      )}
    </article>
  );
}

const updateSchema = incidentSchema.pick({ status: true, message: true });

function AddUpdate({ incident }: { incident: StatusPageIncident }) {
  const client = useClient(StatusPageService);
  const form = useForm({ resolver: zodResolver(updateSchema), defaultValues: { status: (incident.status || "investigating") as (typeof INCIDENT_STATUSES)[number], message: "" } });
  const api = useApiErrors(form, ["status", "message"]);
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      await client.addStatusPageIncidentUpdate({ incidentId: incident.id, ...fields });
      form.reset({ status: fields.status, message: "" });
    }),
  );
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={`Add an update to ${incident.title}`}>
      <h3>Add an update</h3>
      <FormMessage message={api.message} />
      <HookField form={form} name="status" label="New status" options={INCIDENT_STATUSES} />
      <MarkdownField form={form} name="message" label="Update message" />
      <button type="submit" disabled={form.formState.isSubmitting}>
        Post update
      </button>
    </form>
  );
}

const editSchema = incidentSchema.pick({ title: true, postmortem: true });

function EditIncident({ incident, components, onDone }: { incident: StatusPageIncident; components: StatusPageComponent[]; onDone: () => void }) {
  const client = useClient(StatusPageService);
  const [impacts, setImpacts] = useState<Record<string, string>>(Object.fromEntries(incident.components.map((c) => [c.componentId, c.impact])));
  const form = useForm({ resolver: zodResolver(editSchema), defaultValues: { title: incident.title ?? "", postmortem: incident.postmortem ?? "" } });
  const api = useApiErrors(form, ["title", "postmortem"]);
  const resolved = incident.status === "resolved";
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      await client.updateStatusPageIncident({ id: incident.id, incident: { ...fields, components: affected(impacts) }, updateMask: { paths: ["title", "postmortem", "components"] } });
      onDone();
    }),
  );
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={`Edit ${incident.title}`}>
      <FormMessage message={api.message} />
      <HookField form={form} name="title" label="Incident title" />
      <MarkdownField form={form} name="postmortem" label="Postmortem" hint={resolved ? "Markdown: what happened and what will change." : "Only a resolved incident can have one: post a resolved update first."} />
      <ImpactFields components={components} impacts={impacts} onChange={setImpacts} />
      <button type="submit" disabled={form.formState.isSubmitting}>
        Save incident
      </button>
    </form>
  );
}
