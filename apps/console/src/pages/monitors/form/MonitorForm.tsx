import {
  GRPC_HEALTH_STATUSES,
  HTTP_METHODS,
  JSON_COMPARATORS,
  LIMITS,
  NUMBER_COMPARATORS,
  PERIODICITIES,
  RECORD_COMPARATORS,
  RECORD_TYPES,
  REGION_GROUPS,
  SLO,
  STRING_COMPARATORS,
  defaultDegradedAt,
  type MonitorKind,
} from "@vigil/domain/monitors";
import { useId, useRef, useState, type ReactNode } from "react";
import {
  FormProvider,
  get,
  useFieldArray,
  useForm,
  useFormContext,
  type FieldArrayPath,
  type FieldErrors,
  type Path,
  type RegisterOptions,
} from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { fieldRulesOf, refusalOfError } from "../../../api";
import { FormMessage, Labelled, useFocusOnFirstError } from "../../../ui";
import { DependsOn } from "./DependsOn";
import { KIND_NAMES } from "../monitor";
import { NEW_MONITOR, asNumber, formFieldOf, monitorResolver, orUndefined, type MonitorFormValues, type ValidMonitor } from "./values";

export const KIND_LABELS: Record<MonitorKind, string> = KIND_NAMES;

const TARGETS = {
  http: { name: "url", label: "URL", hint: "An absolute http:// or https:// URL." },
  tcp: { name: "uri", label: "Host and port", hint: "host:port, where host is a name, an IPv4 address or [IPv6]; port 1 to 65535." },
  dns: { name: "uri", label: "Domain name", hint: "The name to resolve, e.g. example.com." },
  grpc: { name: "uri", label: "Host and port", hint: "host:port of the gRPC server, where host is a name, an IPv4 address or [IPv6]; port 1 to 65535." },
} as const;

/** The health statuses' words; their values are the domain's (grpc.health.v1's names). */
const HEALTH_STATUS_WORDS: Record<string, string> = {
  SERVING: "SERVING",
  NOT_SERVING: "NOT_SERVING",
  UNKNOWN: "UNKNOWN",
  SERVICE_UNKNOWN: "SERVICE_UNKNOWN (the server does not know the service)",
};

/** The comparators' words; their values are the domain's. */
const COMPARATOR_WORDS: Record<string, string> = {
  eq: "equals",
  neq: "does not equal",
  gt: "is greater than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
  contains: "contains",
  not_contains: "does not contain",
  empty: "is empty",
  not_empty: "is not empty",
  exists: "exists",
  not_exists: "does not exist",
};

type Name = Path<MonitorFormValues>;

/** The rule a field breaks, from the browser's check or the API; for a list, its own rule or its first entry's. */
function messageAt(errors: FieldErrors<MonitorFormValues>, name: string): string | undefined {
  const error = get(errors, name) as { message?: string } | { message?: string }[] | undefined;
  if (Array.isArray(error)) return error.find((entry) => entry?.message)?.message;
  return error?.message;
}

function TextInput({ name, label, hint, options, multiline, ...input }: { name: Name; label: string; hint?: string; options?: RegisterOptions<MonitorFormValues>; multiline?: boolean; inputMode?: "numeric" | "decimal"; autoComplete?: string }) {
  const { register, formState } = useFormContext<MonitorFormValues>();
  return (
    <Labelled label={label} hint={hint} error={messageAt(formState.errors, name)}>
      {(control) => (multiline ? <textarea rows={3} {...control} {...register(name, options)} /> : <input {...control} {...input} {...register(name, options)} />)}
    </Labelled>
  );
}

const numberOptions = { setValueAs: asNumber };

function Select({ name, label, values, words, empty, hint }: { name: Name; label: string; values: readonly string[]; words?: Record<string, string>; empty?: string; hint?: string }) {
  const { register, formState } = useFormContext<MonitorFormValues>();
  return (
    <Labelled label={label} hint={hint} error={messageAt(formState.errors, name)}>
      {(control) => (
        <select {...control} {...register(name, { setValueAs: orUndefined })}>
          {empty !== undefined && <option value="">{empty}</option>}
          {values.map((value) => (
            <option key={value} value={value}>
              {words?.[value] ?? value}
            </option>
          ))}
        </select>
      )}
    </Labelled>
  );
}

function Check({ name, label, hint }: { name: Name; label: string; hint?: string }) {
  const { register, formState } = useFormContext<MonitorFormValues>();
  return (
    <Labelled className="field check" label={label} hint={hint} error={messageAt(formState.errors, name)}>
      {(control) => <input type="checkbox" {...control} {...register(name)} />}
    </Labelled>
  );
}

/**
 * A list of rows (headers, assertions) in a fieldset: each row's fields and a
 * button to remove it, a button to add one up to the domain's limit.
 */
function Rows<N extends FieldArrayPath<MonitorFormValues>>({
  name,
  legend,
  noun,
  blank,
  max,
  hint,
  row,
}: {
  name: N;
  legend: string;
  noun: string;
  blank: MonitorFormValues[N & keyof MonitorFormValues] extends (infer T)[] ? T : never;
  max: number;
  hint?: string;
  row: (prefix: `${N}.${number}`, label: (field: string) => string) => ReactNode;
}) {
  const { control, formState } = useFormContext<MonitorFormValues>();
  const { fields, append, remove } = useFieldArray({ control, name });
  const id = useId();
  const listError = (get(formState.errors, name) as { message?: string } | undefined)?.message;
  return (
    <fieldset aria-describedby={[hint && `${id}-hint`, listError && `${id}-error`].filter(Boolean).join(" ") || undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {fields.map((field, index) => (
        <div className="row" key={field.id}>
          {row(`${name}.${index}`, (what) => `${noun} ${index + 1} ${what}`)}
          <button type="button" className="secondary" onClick={() => remove(index)}>
            Remove {noun.toLowerCase()} {index + 1}
          </button>
        </div>
      ))}
      {listError && (
        <p id={`${id}-error`} className="error">
          {legend}: {listError}
        </p>
      )}
      <button type="button" className="secondary" disabled={fields.length >= max} onClick={() => append(blank as never)}>
        Add {noun.toLowerCase()}
      </button>
    </fieldset>
  );
}

function Headers({ name, legend, noun }: { name: "headers" | "openTelemetry.headers"; legend: string; noun: string }) {
  return (
    <Rows
      name={name}
      legend={legend}
      noun={noun}
      blank={{ key: "", value: "" }}
      max={LIMITS.headersPerMonitor}
      hint={`At most ${LIMITS.headersPerMonitor}.`}
      row={(prefix, label) => (
        <>
          <TextInput name={`${prefix}.key`} label={label("name")} autoComplete="off" />
          <TextInput name={`${prefix}.value`} label={label("value")} autoComplete="off" />
        </>
      )}
    />
  );
}

/** The regions of the domain's region table, grouped by host; none chosen means the deployment's default regions. */
function Regions() {
  const { register, formState } = useFormContext<MonitorFormValues>();
  const id = useId();
  const error = messageAt(formState.errors, "regions");
  return (
    <fieldset aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}>
      <legend>Regions</legend>
      <p id={`${id}-hint`} className="hint">
        Where the monitor is checked from. None chosen: the deployment's default regions.
      </p>
      {Object.entries(REGION_GROUPS).map(([host, locations]) => (
        <fieldset key={host} className="choices">
          <legend>{host}</legend>
          {locations.map((location) => (
            <div className="field check" key={location}>
              <input
                type="checkbox"
                id={`${id}-${host}-${location}`}
                value={`${host}-${location}`}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${id}-error` : undefined}
                {...register("regions")}
              />
              <label htmlFor={`${id}-${host}-${location}`}>{location}</label>
            </div>
          ))}
        </fieldset>
      ))}
      {error && (
        <p id={`${id}-error`} className="error">
          Regions: {error}
        </p>
      )}
    </fieldset>
  );
}

function HttpAssertions() {
  const max = LIMITS.assertionsPerList;
  return (
    <>
      <Rows
        name="statusCodeAssertions"
        legend="Status code assertions"
        noun="Status code assertion"
        blank={{ target: undefined, comparator: NUMBER_COMPARATORS[0] }}
        max={max}
        hint={`The response's status code, ${LIMITS.statusCode.min} to ${LIMITS.statusCode.max}; at most ${max}.`}
        row={(prefix, label) => (
          <>
            <Select name={`${prefix}.comparator`} label={label("comparator")} values={NUMBER_COMPARATORS} words={COMPARATOR_WORDS} />
            <TextInput name={`${prefix}.target`} label={label("status code")} inputMode="numeric" options={numberOptions} />
          </>
        )}
      />
      <Rows
        name="bodyAssertions"
        legend="Body assertions"
        noun="Body assertion"
        blank={{ target: "", comparator: STRING_COMPARATORS[0] }}
        max={max}
        hint={`The response's body; at most ${max}.`}
        row={(prefix, label) => (
          <>
            <Select name={`${prefix}.comparator`} label={label("comparator")} values={STRING_COMPARATORS} words={COMPARATOR_WORDS} />
            <TextInput name={`${prefix}.target`} label={label("text")} />
          </>
        )}
      />
      <Rows
        name="headerAssertions"
        legend="Header assertions"
        noun="Header assertion"
        blank={{ key: "", target: "", comparator: STRING_COMPARATORS[0] }}
        max={max}
        hint={`A response header, its name matched case-insensitively; at most ${max}.`}
        row={(prefix, label) => (
          <>
            <TextInput name={`${prefix}.key`} label={label("header name")} autoComplete="off" />
            <Select name={`${prefix}.comparator`} label={label("comparator")} values={STRING_COMPARATORS} words={COMPARATOR_WORDS} />
            <TextInput name={`${prefix}.target`} label={label("text")} />
          </>
        )}
      />
      <Rows
        name="jsonBodyAssertions"
        legend="JSON body assertions"
        noun="JSON body assertion"
        blank={{ path: "", comparator: JSON_COMPARATORS[0], target: "" }}
        max={max}
        hint={`The values a JSONPath query (RFC 9535, e.g. $.status) selects in a JSON body; every value selected must match. A number for greater/less; no value for exists. At most ${max}.`}
        row={(prefix, label) => (
          <>
            <TextInput name={`${prefix}.path`} label={label("JSONPath")} autoComplete="off" />
            <Select name={`${prefix}.comparator`} label={label("comparator")} values={JSON_COMPARATORS} words={COMPARATOR_WORDS} />
            <TextInput name={`${prefix}.target`} label={label("value")} />
          </>
        )}
      />
    </>
  );
}

function RecordAssertions() {
  const max = LIMITS.assertionsPerList;
  return (
    <Rows
      name="recordAssertions"
      legend="Record assertions"
      noun="Record assertion"
      blank={{ record: RECORD_TYPES[0], target: "", comparator: RECORD_COMPARATORS[0] }}
      max={max}
      hint={`The records the name resolves to; at most ${max}.`}
      row={(prefix, label) => (
        <>
          <Select name={`${prefix}.record`} label={label("record type")} values={RECORD_TYPES} />
          <Select name={`${prefix}.comparator`} label={label("comparator")} values={RECORD_COMPARATORS} words={COMPARATOR_WORDS} />
          <TextInput name={`${prefix}.target`} label={label("value")} />
        </>
      )}
    />
  );
}

/** The certificate warning of the kinds that verify one (HTTPS, gRPC over TLS). */
function CertificateExpiryDays() {
  return (
    <TextInput
      name="certificateExpiryDays"
      label="Certificate warning (days)"
      hint={`${LIMITS.certificateExpiryDays.min} to ${LIMITS.certificateExpiryDays.max}: warn the monitor's channels this many days before the TLS certificate (or one that issued it) expires, and again at 7 and 1 days. 0: never.`}
      inputMode="numeric"
      options={numberOptions}
    />
  );
}

/** What a gRPC health check asks and expects. */
function HealthCheck() {
  return (
    <fieldset>
      <legend>Health check</legend>
      <TextInput
        name="service"
        label="Service"
        hint={`The health service asked about ("package.Service"), at most ${LIMITS.grpcServiceMaxChars} characters. Empty: the whole server.`}
        autoComplete="off"
      />
      <Select name="expectedStatus" label="Expected status" values={GRPC_HEALTH_STATUSES} words={HEALTH_STATUS_WORDS} hint="The check passes when grpc.health.v1.Health/Check answers this status." />
      <Check name="tls" label="TLS" hint="Connect over TLS, verifying the server's certificate as for HTTPS." />
      <Headers name="headers" legend="Metadata" noun="Metadata entry" />
      <CertificateExpiryDays />
    </fieldset>
  );
}

function Timing() {
  const { watch } = useFormContext<MonitorFormValues>();
  const timeout = watch("timeout");
  const valid = typeof timeout === "number" && Number.isInteger(timeout) && timeout >= LIMITS.timeoutMs.min && timeout <= LIMITS.timeoutMs.max;
  const derived = valid ? ` (${defaultDegradedAt(timeout)} ms for this timeout)` : "";
  const range = (r: { min: number; max: number }) => `${r.min} to ${r.max}`;
  return (
    <fieldset>
      <legend>Timing</legend>
      <TextInput name="timeout" label="Timeout (ms)" hint={`${range(LIMITS.timeoutMs)}; 0: the longest a check may take.`} inputMode="numeric" options={numberOptions} />
      <TextInput name="retry" label="Retries" hint={`${range(LIMITS.retry)}: checks again before a failure counts.`} inputMode="numeric" options={numberOptions} />
      <TextInput
        name="degradedAt"
        label="Degraded after (ms)"
        hint={`${range(LIMITS.degradedAtMs)}: a slower answer is degraded. Empty: half of the timeout${derived}.`}
        inputMode="numeric"
        options={numberOptions}
      />
    </fieldset>
  );
}

/** The monitors it depends on, the others of the workspace. */
function Dependencies({ self }: { self: string | undefined }) {
  const { register, formState } = useFormContext<MonitorFormValues>();
  return <DependsOn self={self} input={() => register("dependsOn")} error={messageAt(formState.errors, "dependsOn")} />;
}

/** When the monitor fails and recovers, overriding the deployment's defaults (docs/alerting.md). */
function Alerting() {
  const range = `${LIMITS.confirmations.min} to ${LIMITS.confirmations.max}`;
  return (
    <fieldset>
      <legend>Alerting</legend>
      <TextInput
        name="alertQuorum"
        label="Alert quorum"
        hint="Regions that must fail before the monitor does: half, majority, all, or a number up to its regions. Empty: the deployment's ALERT_QUORUM."
        autoComplete="off"
      />
      <TextInput
        name="confirmations"
        label="Confirmations"
        hint={`${range}: failing checks in a row before a region counts as failing.`}
        inputMode="numeric"
        options={numberOptions}
      />
      <TextInput
        name="recoveryConfirmations"
        label="Recovery confirmations"
        hint={`${range}: good checks in a row before a failing region counts as recovered.`}
        inputMode="numeric"
        options={numberOptions}
      />
    </fieldset>
  );
}

/** Service level objectives over the SLO window (docs/alerting.md "SLOs"); 0 is none. */
function Objectives() {
  const percents = `${SLO.objectivePercent.min} to ${SLO.objectivePercent.max}`;
  return (
    <fieldset>
      <legend>Objectives (SLO)</legend>
      <TextInput
        name="availabilityObjective"
        label="Availability objective (%)"
        hint={`${percents}: the share of checks over ${SLO.windowDays} days that must not fail. 0: none.`}
        inputMode="decimal"
        options={numberOptions}
      />
      <TextInput
        name="latencyObjectiveMs"
        label="Latency objective (ms)"
        hint={`${SLO.latencyObjectiveMs.min} to ${SLO.latencyObjectiveMs.max}: the threshold answered checks must be at or under. 0: none.`}
        inputMode="numeric"
        options={numberOptions}
      />
      <TextInput
        name="latencyObjectivePercent"
        label="Latency objective (% of checks)"
        hint={`${percents}: the share of answered checks over ${SLO.windowDays} days under the threshold; set with it. 0: none.`}
        inputMode="decimal"
        options={numberOptions}
      />
    </fieldset>
  );
}

function OpenTelemetry() {
  const { watch } = useFormContext<MonitorFormValues>();
  return (
    <fieldset>
      <legend>OpenTelemetry</legend>
      <Check name="exportsMetrics" label="Export check metrics over OTLP" />
      {watch("exportsMetrics") && (
        <>
          <TextInput
            name="openTelemetry.endpoint"
            label="OTLP endpoint"
            hint="An http:// or https:// URL. Empty: the agent's OTLP defaults (OTEL_EXPORTER_OTLP_*, else localhost:4318)."
          />
          <Headers name="openTelemetry.headers" legend="Export headers" noun="Export header" />
        </>
      )}
    </fieldset>
  );
}

/**
 * The form of one kind of monitor: every field of its Create/Update request,
 * checked by the API's rules before sending; the API's refusal, after, beside
 * the fields it names. `send` answers the saved monitor's id.
 */
export function MonitorForm<K extends MonitorKind>({
  kind,
  initial = NEW_MONITOR,
  submit,
  cancelTo,
  send,
  self,
}: {
  kind: K;
  /** The monitor edited, which cannot depend on itself; none for a new one. */
  self?: string;
  initial?: MonitorFormValues;
  submit: string;
  cancelTo: string;
  send: (monitor: ValidMonitor<K>) => Promise<string>;
}) {
  const form = useForm<MonitorFormValues, unknown, ValidMonitor<K>>({ defaultValues: initial, resolver: monitorResolver(kind), shouldFocusError: false });
  const navigate = useNavigate();
  const ref = useRef<HTMLFormElement>(null);
  const [message, setMessage] = useState<string | null>(null);
  // Counted once the browser's check, or the API's answer, is in the form's state.
  useFocusOnFirstError(ref, form.formState.submitCount);

  const saved = async (monitor: ValidMonitor<K>) => {
    setMessage(null);
    try {
      navigate(`/monitors/${await send(monitor)}`);
    } catch (error) {
      const refusal = refusalOfError(error);
      const fields = fieldRulesOf(refusal.message).map(([path, rule]) => [formFieldOf(path), rule] as const);
      for (const [name, rule] of fields) if (name) form.setError(name as Name, { type: "api", message: rule });
      if (fields.length === 0 || fields.some(([name]) => !name)) setMessage(refusal.message);
    }
  };

  const target = TARGETS[kind];
  return (
    <FormProvider {...form}>
      <form ref={ref} onSubmit={form.handleSubmit(saved)} noValidate className="monitor-form">
        <FormMessage message={message} />
        <TextInput name="name" label="Name" hint={`At most ${LIMITS.nameMaxChars} characters.`} />
        <TextInput name={target.name} label={target.label} hint={target.hint} autoComplete="off" />
        <Select name="periodicity" label="Check every" values={PERIODICITIES} empty="Choose how often" />
        {kind === "http" && (
          <fieldset>
            <legend>Request</legend>
            <Select name="method" label="Method" values={HTTP_METHODS} />
            <TextInput name="body" label="Body" multiline hint={`At most ${LIMITS.httpBodyMaxChars} characters.`} />
            <Headers name="headers" legend="Request headers" noun="Header" />
            <Check name="followRedirects" label="Follow redirects" />
            <Check
              name="traceHeader"
              label="Send a trace header"
              hint="Each check sends a W3C traceparent header starting a new trace, whose id the check log shows. A traceparent among the headers is sent instead."
            />
            <CertificateExpiryDays />
          </fieldset>
        )}
        {kind === "grpc" && <HealthCheck />}
        <Timing />
        <Regions />
        <Alerting />
        <Objectives />
        <Dependencies self={self} />
        {kind === "http" && <HttpAssertions />}
        {kind === "dns" && <RecordAssertions />}
        <fieldset>
          <legend>State</legend>
          <Check name="active" label="Active" hint="Checked on its periodicity; an inactive monitor is not checked." />
          <Check name="public" label="Public" hint="Status pages show its daily history; a private monitor shows its status only." />
        </fieldset>
        <OpenTelemetry />
        <TextInput name="description" label="Description" multiline hint={`At most ${LIMITS.descriptionMaxChars} characters.`} />
        <TextInput
          name="externalId"
          label="External id"
          hint="Optional, your own identifier: letters, digits and . _ : / -, unique in the workspace."
          autoComplete="off"
        />
        <div className="actions">
          <button type="submit" disabled={form.formState.isSubmitting}>
            {submit}
          </button>
          <Link to={cancelTo}>Cancel</Link>
        </div>
      </form>
    </FormProvider>
  );
}
