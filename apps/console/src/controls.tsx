import type { DescService } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { createClient, type Client } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState, type ComponentProps, type ReactNode } from "react";
import { refusalOfError } from "./api";
import { FormMessage, shown, type FieldErrors } from "./ui";

/** A client of `service` on the console's transport (the session cookie, the chosen workspace). */
export function useClient<S extends DescService>(service: S): Client<S> {
  const transport = useTransport();
  return useMemo(() => createClient(service, transport), [service, transport]);
}

/**
 * A form's submit around one RPC: after it, every query is asked again (the
 * lists show the change); a refusal comes back as the form shows it.
 */
export function useSubmit(formFields: readonly string[]) {
  const queries = useQueryClient();
  return async (call: () => Promise<unknown>): Promise<{ fields?: FieldErrors; message?: string } | void> => {
    try {
      await call();
    } catch (error) {
      return shown(refusalOfError(error), formFields);
    }
    await queries.invalidateQueries();
  };
}

/**
 * A button's RPC outside a form (remove, revoke, end): the API's refusal, if
 * it refuses, is shown in `message` (the controls are hidden from who may not
 * use them, but the API decides).
 */
export function useAction() {
  const queries = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  /** Whether the call was made and answered; `question` asks the person first. */
  const run = async (call: () => Promise<unknown>, question?: string): Promise<boolean> => {
    if (question && !window.confirm(question)) return false;
    let done = true;
    try {
      await call();
      setMessage(null);
    } catch (error) {
      setMessage(refusalOfError(error).message);
      done = false;
    }
    await queries.invalidateQueries();
    return done;
  };
  return { run, message: <FormMessage message={message} /> };
}

interface SelectFieldProps extends ComponentProps<"select"> {
  name: string;
  label: string;
  options: readonly string[];
  error?: string | undefined;
}

/** A labelled select whose error (the API's wording) is tied to it, like `Field`. */
export function SelectField({ name, label, options, error, ...select }: SelectFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...select}>
        {options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
      {error && (
        <p id={`${id}-error`} className="error">
          {label}: {error}
        </p>
      )}
    </div>
  );
}

/** A time as the person's browser writes times; "—" when there is none. */
export const when = (at: Timestamp | undefined) => (at ? timestampDate(at).toLocaleString() : "—");

/** A page's table: scrolls within itself at 390 px rather than widening the page. */
export function Table({ caption, head, children }: { caption: string; head: readonly string[]; children: ReactNode }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {head.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
