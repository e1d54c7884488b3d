import type { MonitorKind } from "@vigil/domain/monitors";
import { useSearchParams } from "react-router";
import { Page } from "../../../ui";
import { HeartbeatForm } from "./HeartbeatForm";
import { KIND_LABELS, MonitorForm } from "./MonitorForm";
import { MayNotWrite, useMayWrite } from "./permission";
import { useMonitorWrites } from "./writes";

type NewKind = MonitorKind | "heartbeat";
const LABELS: Record<NewKind, string> = { ...KIND_LABELS, heartbeat: "Heartbeat" };
const KINDS = Object.keys(LABELS) as NewKind[];
const isKind = (value: string | null): value is NewKind => KINDS.includes(value as NewKind);

/** /monitors/new: the kind first (kept in ?kind=, so a link may name it), then that kind's form. */
export default function NewMonitor() {
  const [params, setParams] = useSearchParams();
  const writes = useMonitorWrites();
  const mayWrite = useMayWrite();
  const kind = isKind(params.get("kind")) ? (params.get("kind") as NewKind) : "http";
  if (!mayWrite) return <MayNotWrite title="New monitor" what="create monitors" />;
  return (
    <Page title="New monitor" wide>
      <fieldset className="kinds">
        <legend>Kind</legend>
        {KINDS.map((k) => (
          <div className="field check" key={k}>
            <input type="radio" id={`kind-${k}`} name="kind" value={k} checked={k === kind} onChange={() => setParams({ kind: k }, { replace: true })} />
            <label htmlFor={`kind-${k}`}>{LABELS[k]}</label>
          </div>
        ))}
      </fieldset>
      {kind === "heartbeat" ? (
        <HeartbeatForm submit="Create heartbeat monitor" cancelTo="/monitors" />
      ) : (
        <MonitorForm key={kind} kind={kind} submit={`Create ${KIND_LABELS[kind]} monitor`} cancelTo="/monitors" send={(valid) => writes.create(kind, valid)} />
      )}
    </Page>
  );
}
