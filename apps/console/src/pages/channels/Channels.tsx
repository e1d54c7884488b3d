import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { isProviderType } from "@vigil/domain/notifications";
import { NotificationService } from "@vigil/proto/notification";
import { Link } from "react-router";
import { useMonitorNames } from "../../monitors/names";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { Table } from "../../controls";
import { PROVIDER_LABELS } from "./providers";

/** Every notification channel of the workspace: its type, name and the monitors it covers. */
export default function Channels() {
  const channels = useQuery(NotificationService.method.listNotifications, { limit: 100 }, { retry: false });
  const monitors = useMonitorNames();
  const role = useRole();
  return (
    <Page title="Channels" wide>
      {channels.error && <FormMessage message={channels.error.message} />}
      {role && roleCan(role, "write") && (
        <p>
          <Link to="/channels/new">Add a channel</Link>
        </p>
      )}
      {channels.data?.notifications.length === 0 && <p>No channel yet.</p>}
      {!!channels.data?.notifications.length && (
        <Table caption="Channels" head={["Name", "Type", "Monitors"]}>
          {channels.data.notifications.map((c) => (
            <tr key={c.id}>
              <td>
                <Link to={`/channels/${c.id}`}>{c.name || c.id}</Link>
              </td>
              <td>{c.providerType && isProviderType(c.providerType) ? PROVIDER_LABELS[c.providerType] : c.providerType}</td>
              <td>{c.monitorIds.map((id) => monitors.get(id) ?? id).join(", ") || "none"}</td>
            </tr>
          ))}
        </Table>
      )}
      {channels.data && channels.data.totalSize > channels.data.notifications.length && (
        <p>
          The first {channels.data.notifications.length} of {channels.data.totalSize} channels.
        </p>
      )}
    </Page>
  );
}
