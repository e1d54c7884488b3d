import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { FieldValues, Path, UseFormReturn } from "react-hook-form";
import { refusalOfError } from "../../api";
import { Labelled, type LabelledControl } from "../../ui";

/**
 * The API's refusal of a react-hook-form form: each field it names is set beside that field
 * (the API names `statusPage.title`, the form `title`); otherwise its message is shown above.
 * After an accepted call every query is asked again, so lists show the change.
 */
export function useApiErrors<T extends FieldValues>(form: UseFormReturn<T, unknown, unknown>, fields: readonly Path<T>[]) {
  const queries = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  const call = async (run: () => Promise<unknown>): Promise<boolean> => {
    try {
      await run();
    } catch (error) {
      const refusal = refusalOfError(error);
      const named = fields.filter((name) => refusal.fields[name] !== undefined);
      for (const name of named) form.setError(name, { message: refusal.fields[name] }, { shouldFocus: name === named[0] });
      setMessage(named.length ? null : refusal.message);
      return false;
    }
    setMessage(null);
    await queries.invalidateQueries();
    return true;
  };
  return { call, message };
}

interface HookFieldProps<T extends FieldValues> {
  form: UseFormReturn<T, unknown, unknown>;
  name: Path<T>;
  label: string;
  hint?: string;
  type?: string;
  multiline?: boolean;
  /** A select of these: a value, or a value and the words shown for it. */
  options?: readonly (string | { value: string; label: string })[];
  autoComplete?: string;
}

/** A labelled input, textarea or select of a react-hook-form form, its error (the domain's or the API's wording) tied to it. */
export function HookField<T extends FieldValues>({ form, name, label, hint, type = "text", multiline, options, autoComplete = "off" }: HookFieldProps<T>) {
  const error = form.formState.errors[name]?.message;
  const control = (tie: LabelledControl) => {
    const props = { ...tie, ...form.register(name) };
    if (multiline) return <textarea rows={3} {...props} />;
    if (!options) return <input type={type} autoComplete={autoComplete} {...props} />;
    return (
      <select {...props}>
        {options.map((option) =>
          typeof option === "string" ? (
            <option key={option}>{option}</option>
          ) : (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ),
        )}
      </select>
    );
  };
  return (
    <Labelled label={label} hint={hint} error={typeof error === "string" ? error : undefined}>
      {control}
    </Labelled>
  );
}
