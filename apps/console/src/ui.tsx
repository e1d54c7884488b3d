import { useEffect, useId, useRef, useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from "react";
import { ACCOUNTS } from "@vigil/domain/accounts";
import type { Refusal } from "./api";
import { loadPasswordRules } from "./fields";

/** A page's card; `wide` for the pages of tables (settings). */
export function Page({ title, wide, children }: { title: string; wide?: boolean; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Vigil`;
  }, [title]);
  return (
    <main className={wide ? "card wide" : "card"}>
      <p className="brand" aria-hidden="true">
        Vigil
      </p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string;
  label: string;
  error?: string | undefined;
  hint?: string;
}

/** A labelled input whose error (the API's wording) is tied to it for assistive technology. */
export function Field({ name, label, error, hint, ...input }: FieldProps) {
  return <LabelledControl label={label} hint={hint} error={error} control={(tie) => <input name={name} {...tie} {...input} />} />;
}

/** What ties a control to its label, hint and error: spread on the input, select or textarea. */
export interface ControlTie {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/** A label, an optional hint, the control `control` draws, and its error, tied together for assistive technology. */
export function LabelledControl({ label, hint, error, control }: { label: string; hint?: string | undefined; error?: string | undefined; control: (tie: ControlTie) => ReactNode }) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {control({ id, "aria-invalid": error ? true : undefined, "aria-describedby": described })}
      {error && (
        <p id={`${id}-error`} className="error">
          {label}: {error}
        </p>
      )}
    </div>
  );
}

export type FieldErrors = Record<string, string | undefined>;

/**
 * A form's state between the person and the API: field errors and a message.
 * After each refusal the focus moves to the first field in error, or to the
 * message, so that keyboard and screen-reader users land on what to fix.
 */
export function useForm(submit: (data: FormData) => Promise<{ fields?: FieldErrors; message?: string } | void>) {
  const ref = useRef<HTMLFormElement>(null);
  const [state, setState] = useState<{ fields: FieldErrors; message: string | null; shown: number }>({ fields: {}, message: null, shown: 0 });
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (state.shown === 0) return;
    const target = ref.current?.querySelector<HTMLElement>("[aria-invalid=true], [data-form-message]");
    target?.focus();
  }, [state.shown]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    try {
      const refused = await submit(new FormData(event.currentTarget));
      if (refused) setState((s) => ({ fields: refused.fields ?? {}, message: refused.message ?? null, shown: s.shown + 1 }));
      else setState((s) => ({ ...s, fields: {}, message: null }));
    } finally {
      setBusy(false);
    }
  };
  return { ref, onSubmit, busy, errors: state.fields, message: state.message };
}

/** What a form shows of a refusal: the fields the API named, and its message when it named none of the form's. */
export function shown(refusal: Refusal, formFields: readonly string[]): { fields: FieldErrors; message?: string } {
  const fields = Object.fromEntries(Object.entries(refusal.fields).filter(([name]) => formFields.includes(name)));
  return Object.keys(fields).length ? { fields } : { fields, message: refusal.message };
}

/** Rules broken before sending, field by field; undefined when none is. */
export function brokenRules(checks: Record<string, string | null>): { fields: FieldErrors } | undefined {
  const fields = Object.fromEntries(Object.entries(checks).filter((entry): entry is [string, string] => entry[1] !== null));
  return Object.keys(fields).length ? { fields } : undefined;
}

export function FormMessage({ message }: { message: string | null }) {
  // Always in the page so that screen readers announce what is put in it.
  return (
    <div className="form-message" role="alert" tabIndex={-1} data-form-message={message ? "" : undefined} hidden={!message}>
      {message}
    </div>
  );
}

/** A form of the console: its message first, then its fields, then its one button. */
export function Form({ form, submit, disabled, children }: { form: ReturnType<typeof useForm>; submit: string; disabled?: boolean; children?: ReactNode }) {
  return (
    <form ref={form.ref} onSubmit={form.onSubmit} noValidate>
      <FormMessage message={form.message} />
      {children}
      <button type="submit" disabled={form.busy || disabled}>
        {submit}
      </button>
    </form>
  );
}

/** A password the person chooses; focusing it fetches the common-passwords list for the check before sending. */
export function NewPasswordField({ name, label, error }: { name: string; label: string; error: string | undefined }) {
  return (
    <Field
      name={name}
      label={label}
      type="password"
      autoComplete="new-password"
      hint={`At least ${ACCOUNTS.passwordMinChars} characters, not one of the common passwords.`}
      onFocus={() => void loadPasswordRules()}
      error={error}
    />
  );
}

/** The second factor, as sign-in and an invitation to an existing account ask for it. */
export function CodeField({ error, autoFocus }: { error: string | undefined; autoFocus?: boolean }) {
  const hint = "A current code of your authenticator app, or one of your recovery codes.";
  return <Field name="totp" label="Code" hint={hint} autoComplete="one-time-code" autoFocus={autoFocus} error={error} />;
}

export const text = (data: FormData, name: string) => String(data.get(name) ?? "");
