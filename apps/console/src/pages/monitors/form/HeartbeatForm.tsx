import { DEFAULTS, HEARTBEAT_FIELDS, externalIdRule, heartbeatConfigToMessage, heartbeatMonitorSchema } from "@vigil/domain/monitors";
import { HeartbeatMonitorSchema, MonitorService, type HeartbeatMonitor } from "@vigil/proto";
import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router";
import { z } from "zod";
import { refusalOfError } from "../../../api";
import { useClient } from "../../../controls";
import { Field, Form, Labelled, shown, text, useForm } from "../../../ui";
import { DependsOn } from "./DependsOn";

const FIELDS = ["name", "periodSeconds", "cron", "timezone", "graceSeconds", "description", "dependsOn", "externalId"] as const;
/** The update mask of a form's save: every field it sets, as the proto spells them. */
const EVERY_FIELD = new Set<string>([...HEARTBEAT_FIELDS, "externalId"]);
const UPDATE_MASK = { paths: HeartbeatMonitorSchema.fields.filter((f) => EVERY_FIELD.has(f.localName)).map((f) => f.name) };

const number = (value: string) => (value.trim() === "" ? undefined : Number(value));

/** A heartbeat monitor's form, new or filled with what GetMonitor answered; the domain's rules are checked before sending. */
export function HeartbeatForm({ monitor, submit, cancelTo }: { monitor?: HeartbeatMonitor; submit: string; cancelTo: string }) {
  const client = useClient(MonitorService);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const form = useForm(async (data) => {
    const input = {
      name: text(data, "name"),
      periodSeconds: number(text(data, "periodSeconds")),
      cron: text(data, "cron"),
      timezone: text(data, "timezone"),
      graceSeconds: number(text(data, "graceSeconds")),
      description: text(data, "description"),
      active: data.get("active") === "on",
      public: data.get("public") === "on",
      dependsOn: data.getAll("dependsOn").map(String),
      externalId: text(data, "externalId"),
    };
    const parsed = z.object({ externalId: externalIdRule }).and(heartbeatMonitorSchema).safeParse(input);
    if (!parsed.success) return { fields: Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message])) };
    const { externalId, ...config } = parsed.data;
    const message = heartbeatConfigToMessage(config, externalId);
    try {
      const answer = monitor
        ? await client.updateHeartbeatMonitor({ id: monitor.id, monitor: message, updateMask: UPDATE_MASK })
        : await client.createHeartbeatMonitor({ monitor: message });
      await queries.invalidateQueries();
      void navigate(`/monitors/${answer.monitor!.id}`);
    } catch (error) {
      return shown(refusalOfError(error), FIELDS);
    }
  });
  const e = form.errors;
  return (
    <Form form={form} submit={submit}>
      <Field name="name" label="Name" defaultValue={monitor?.name ?? ""} error={e.name} />
      <Field
        name="periodSeconds"
        label="Period (seconds)"
        inputMode="numeric"
        hint={`How often the job runs; leave empty with a cron expression (${DEFAULTS.heartbeatPeriodSeconds} when both are empty).`}
        defaultValue={monitor?.periodSeconds?.toString() ?? ""}
        error={e.periodSeconds}
      />
      <Field name="cron" label="Cron expression" hint='Instead of a period, e.g. "0 3 * * *".' defaultValue={monitor?.cron ?? ""} error={e.cron} />
      <Field name="timezone" label="Time zone" hint="The IANA time zone of the cron expression." defaultValue={monitor?.timezone ?? DEFAULTS.timezone} error={e.timezone} />
      <Field
        name="graceSeconds"
        label="Grace (seconds)"
        inputMode="numeric"
        hint="How late a run may be before the monitor fails."
        defaultValue={(monitor?.graceSeconds ?? BigInt(DEFAULTS.heartbeatGraceSeconds)).toString()}
        error={e.graceSeconds}
      />
      <Labelled label="Description" error={e.description}>
        {(control) => <textarea name="description" {...control} defaultValue={monitor?.description ?? ""} />}
      </Labelled>
      <div className="field check">
        <input type="checkbox" id="heartbeat-active" name="active" defaultChecked={monitor?.active ?? DEFAULTS.active} />
        <label htmlFor="heartbeat-active">Active (silence fails it)</label>
      </div>
      <div className="field check">
        <input type="checkbox" id="heartbeat-public" name="public" defaultChecked={monitor?.public ?? DEFAULTS.public} />
        <label htmlFor="heartbeat-public">Public</label>
      </div>
      <DependsOn
        self={monitor?.id}
        input={(id) => ({ name: "dependsOn", defaultChecked: monitor?.dependsOn.includes(id) ?? false })}
        error={e.dependsOn}
      />
      <Field name="externalId" label="External id" hint="Optional: your own identifier." defaultValue={monitor?.externalId ?? ""} error={e.externalId} />
      <p>
        <Link to={cancelTo}>Cancel</Link>
      </p>
    </Form>
  );
}
