import { zodResolver } from "@hookform/resolvers/zod";
import { PROVIDER_BLOCK_SCHEMAS, channelSchema, type ProviderType } from "@vigil/domain/notifications";
import { useMemo, useState } from "react";
import { useFieldArray, useForm, type Control, type FieldErrors, type FieldValues, type UseFormRegister } from "react-hook-form";
import { z } from "zod";
import { refusalOfError } from "../../api";
import { useMonitorNames } from "../../monitors/names";
import { Field, FormMessage } from "../../ui";
import { SelectField } from "../../controls";
import { fieldsOf, type BlockField } from "./providers";

export interface ChannelValues {
  name: string;
  monitorIds: string[];
  reminderMinutes: number;
  config: Record<string, unknown>;
}

/** Which parts of the channel the person changed: an update sends only these. */
export interface ChangedParts {
  name: boolean;
  monitorIds: boolean;
  reminderMinutes: boolean;
  block: boolean;
}

/**
 * A channel's form for one type: its name, the monitors it covers, and the
 * fields of its type's block, checked by the domain's schemas before sending;
 * the API's refusal is put beside the fields it names.
 */
export function ChannelForm({
  type,
  initial,
  submit,
  submitLabel,
}: {
  type: ProviderType;
  initial: ChannelValues;
  submit: (values: ChannelValues, changed: ChangedParts) => Promise<void>;
  submitLabel: string;
}) {
  const fields = useMemo(() => fieldsOf(type), [type]);
  const schema = useMemo(
    () =>
      z.object({
        name: channelSchema.shape.name,
        monitorIds: z.array(z.string()),
        reminderMinutes: channelSchema.shape.reminderMinutes,
        config: PROVIDER_BLOCK_SCHEMAS[type],
      }),
    [type],
  );
  // The fields depend on the type: the form is typed by its paths (config.webhookUrl), the schema checks the values.
  const form = useForm<FieldValues>({ resolver: zodResolver(schema as z.ZodType<FieldValues, FieldValues>), defaultValues: initial, shouldFocusError: true });
  const { register, formState, setError, setFocus } = form;
  const [message, setMessage] = useState<string | null>(null);
  const errors = formState.errors;

  const onValid = async (data: FieldValues) => {
    const values = data as ChannelValues;
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const changed = {
      name: values.name !== initial.name,
      monitorIds: !same([...values.monitorIds].sort(), [...initial.monitorIds].sort()),
      reminderMinutes: values.reminderMinutes !== initial.reminderMinutes,
      block: !same(values.config, initial.config),
    };
    try {
      await submit(values, changed);
      setMessage(null);
    } catch (error) {
      const refusal = refusalOfError(error);
      // The API names a block's field by its path (notification.slack.webhookUrl): its last part is the field.
      const named = Object.entries(refusal.fields).flatMap(([field, rule]) => {
        const plain = field === "name" || field === "reminderMinutes";
        const path = field.startsWith("monitorIds") ? "monitorIds" : fields.some((f) => f.name === field) ? `config.${field}` : plain ? field : null;
        return path ? [[path, rule] as const] : [];
      });
      for (const [path, rule] of named) setError(path, { type: "server", message: rule });
      if (named.length > 0) setFocus(named[0]![0]);
      setMessage(named.length > 0 ? null : refusal.message);
    }
  };

  return (
    <form onSubmit={form.handleSubmit(onValid)} noValidate>
      <FormMessage message={message} />
      <Input label="Name (optional)" path="name" register={register} errors={errors} />
      {fields.map((field) =>
        field.name === "headers" ? (
          <Headers key={field.name} register={register} errors={errors} control={form.control} />
        ) : (
          <BlockInput key={field.name} field={field} register={register} errors={errors} />
        ),
      )}
      <MonitorChoice register={register} />
      <Field
        label="Remind every (minutes)"
        hint="While an incident is open and nobody acknowledged it, send the alert again this often; 0: never."
        type="number"
        min={0}
        error={errorAt(errors, "reminderMinutes")}
        {...register("reminderMinutes", { valueAsNumber: true })}
      />
      <button type="submit" disabled={formState.isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}

const errorAt = (errors: FieldErrors<FieldValues>, path: string): string | undefined => {
  let at: unknown = errors;
  for (const part of path.split(".")) at = (at as Record<string, unknown> | undefined)?.[part];
  return (at as { message?: string } | undefined)?.message;
};

/** A field of the form: a select for a fixed set of values, else an input; its rule beside it, as the API's. */
function Input({
  label,
  path,
  register,
  errors,
  hint,
  type,
  options,
}: {
  label: string;
  path: string;
  register: UseFormRegister<FieldValues>;
  errors: FieldErrors<FieldValues>;
  hint?: string | undefined;
  type?: string | undefined;
  options?: readonly string[] | undefined;
}) {
  const error = errorAt(errors, path);
  const registered = register(path);
  if (options) return <SelectField label={label} options={options} error={error} {...registered} />;
  return <Field label={label} hint={hint} type={type ?? "text"} autoComplete="off" error={error} {...registered} />;
}

function BlockInput({ field, register, errors }: { field: BlockField; register: UseFormRegister<FieldValues>; errors: FieldErrors<FieldValues> }) {
  // A secret is answered redacted: sent back unchanged, the API keeps the stored value.
  const hint = field.sensitive ? [field.hint, "A secret: shown redacted once saved; leave it as it is to keep it."].filter(Boolean).join(" ") : field.hint;
  return <Input label={field.label} path={`config.${field.name}`} register={register} errors={errors} hint={hint} type={field.type} options={field.options} />;
}

function Headers({ register, errors, control }: { register: UseFormRegister<FieldValues>; errors: FieldErrors<FieldValues>; control: Control<FieldValues> }) {
  const { fields, append, remove } = useFieldArray({ control, name: "config.headers" });
  return (
    <fieldset className="field">
      <legend>Headers sent with every call</legend>
      {fields.map((header, index) => (
        <div key={header.id} className="pair">
          <Input label={`Header ${index + 1} name`} path={`config.headers.${index}.key`} register={register} errors={errors} />
          <Input label={`Header ${index + 1} value`} path={`config.headers.${index}.value`} register={register} errors={errors} />
          <button type="button" className="secondary" onClick={() => remove(index)}>
            Remove header {index + 1}
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => append({ key: "", value: "" })}>
        Add a header
      </button>
    </fieldset>
  );
}

/** The monitors whose events the channel is told of. */
function MonitorChoice({ register }: { register: UseFormRegister<FieldValues> }) {
  const monitors = useMonitorNames();
  return (
    <fieldset className="field">
      <legend>Monitors it covers</legend>
      {monitors.size === 0 && <p className="hint">No monitor yet.</p>}
      {[...monitors].map(([id, name]) => (
        <label key={id} className="field check">
          <input type="checkbox" value={id} {...register("monitorIds")} /> {name}
        </label>
      ))}
    </fieldset>
  );
}
