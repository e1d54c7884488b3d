import { useQuery } from "@connectrpc/connect-query";
import { MonitorService } from "@vigil/proto";
import { useParams } from "react-router";
import { FormMessage, Page } from "../../../ui";
import { HeartbeatForm } from "./HeartbeatForm";
import { KIND_LABELS, MonitorForm } from "./MonitorForm";
import { MayNotWrite, useMayWrite } from "./permission";
import { valuesOfMonitor } from "./values";
import { useMonitorWrites } from "./writes";

/** /monitors/:id/edit: the monitor's form of its kind, filled with what GetMonitor answers. */
export default function EditMonitor() {
  const id = useParams().id!;
  const mayWrite = useMayWrite();
  const writes = useMonitorWrites();
  const answer = useQuery(MonitorService.method.getMonitor, { id }, { enabled: mayWrite, retry: false });
  if (!mayWrite) return <MayNotWrite title="Edit monitor" what="edit monitors" />;
  const config = answer.data?.monitor?.config;
  if (!config?.case) {
    return <Page title="Edit monitor">{answer.error ? <FormMessage message={answer.error.rawMessage} /> : <p role="status">Loading…</p>}</Page>;
  }
  const kind = config.case;
  if (kind === "heartbeat") {
    return (
      <Page title={`Edit ${config.value.name}`} wide>
        <p>Heartbeat monitor</p>
        <HeartbeatForm key={id} monitor={config.value} submit="Save monitor" cancelTo={`/monitors/${id}`} />
      </Page>
    );
  }
  return (
    <Page title={`Edit ${config.value.name}`} wide>
      <p>{KIND_LABELS[kind]} monitor</p>
      <MonitorForm
        key={id}
        self={id}
        kind={kind}
        initial={valuesOfMonitor(kind, config.value as never)}
        submit="Save monitor"
        cancelTo={`/monitors/${id}`}
        send={(valid) => writes.update(kind, id, valid)}
      />
    </Page>
  );
}
