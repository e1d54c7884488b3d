import { LIMITS } from "@vigil/domain/monitors";
import { useId, type InputHTMLAttributes } from "react";
import { useMonitorNames } from "../../../monitors/names";

/**
 * The monitors a monitor depends on (dependsOn), chosen among the workspace's others, for the form of every kind:
 * `input` gives each checkbox its form binding (react-hook-form's register, or a name and default for a plain form).
 */
export function DependsOn({ self, input, error }: { self?: string; input: (id: string) => InputHTMLAttributes<HTMLInputElement>; error?: string | undefined }) {
  const id = useId();
  const others = [...useMonitorNames()].filter(([monitorId]) => monitorId !== self);
  return (
    <fieldset className="choices" aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}>
      <legend>Depends on</legend>
      <p id={`${id}-hint`} className="hint">
        At most {LIMITS.dependsOnPerMonitor} monitors. While one of them has an open incident, this monitor's failures open none and alert nothing:
        they are listed on that incident as also affected.
      </p>
      {others.length === 0 && <p>No other monitors.</p>}
      {others.map(([monitorId, name]) => (
        <div className="field check" key={monitorId}>
          <input type="checkbox" id={`${id}-${monitorId}`} value={monitorId} aria-invalid={error ? true : undefined} {...input(monitorId)} />
          <label htmlFor={`${id}-${monitorId}`}>{name}</label>
        </div>
      ))}
      {error && (
        <p id={`${id}-error`} className="error">
          Depends on: {error}
        </p>
      )}
    </fieldset>
  );
}
