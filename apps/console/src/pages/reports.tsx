import { Link, useSearchParams } from "react-router";

/** The month before this one (UTC): the first a report is complete for. */
const lastMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
};

/** The report's month from the address (`?month=YYYY-MM`), the last whole month by default, and a way to choose another. */
export function useReportMonth(): [string, (month: string) => void] {
  const [params, setParams] = useSearchParams();
  return [params.get("month") ?? lastMonth(), (month) => setParams({ month })];
}

export const percentText = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(3)} %`);

/** A printable report's controls, which the print style leaves out: the month, Print, and the way back. */
export function ReportControls({ month, onMonth, back, backTo }: { month: string; onMonth: (month: string) => void; back: string; backTo: string }) {
  return (
    <div className="actions no-print">
      <label>
        Month <input type="month" value={month} onChange={(event) => event.target.value && onMonth(event.target.value)} />
      </label>
      <button type="button" onClick={() => window.print()}>
        Print
      </button>
      <Link to={backTo}>{back}</Link>
    </div>
  );
}
