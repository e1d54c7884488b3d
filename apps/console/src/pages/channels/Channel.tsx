import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { isProviderType, type ProviderType } from "@vigil/domain/notifications";
import { NotificationService, type Notification } from "@vigil/proto/notification";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate, useParams } from "react-router";
import { useMonitorNames } from "../../monitors/names";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { useAction, useClient } from "../../controls";
import { ChannelForm, type ChangedParts, type ChannelValues } from "./ChannelForm";
import { Deliveries } from "./Deliveries";
import { providerOf } from "./NewChannel";
import { fieldsOf, PROVIDER_LABELS } from "./providers";

/** The block's fields as the API answered them (secrets redacted), plain values for the form. */
function valuesOf(channel: Notification, type: ProviderType): ChannelValues {
  const block = (channel.provider.value ?? {}) as Record<string, unknown>;
  const config = Object.fromEntries(
    fieldsOf(type).map((f) => [
      f.name,
      f.name === "headers" ? ((block.headers ?? []) as { key: string; value: string }[]).map(({ key, value }) => ({ key, value })) : (block[f.name] ?? ""),
    ]),
  );
  return { name: channel.name ?? "", monitorIds: channel.monitorIds, reminderMinutes: channel.reminderMinutes ?? 0, config };
}

/** One channel: edit (who may write), send a test and see the answer, delete, and its delivery history. */
export default function Channel() {
  const { id = "" } = useParams();
  const channel = useQuery(NotificationService.method.getNotification, { id }, { retry: false });
  const deliveries = useQuery(NotificationService.method.listNotificationDeliveries, { id, limit: 50 }, { retry: false });
  const role = useRole();
  const mayWrite = !!role && roleCan(role, "write");
  const notification = channel.data?.notification;
  const type = notification?.providerType;

  return (
    <Page title={notification ? `Channel ${notification.name || notification.id}` : "Channel"} wide>
      {channel.error && <FormMessage message={channel.error.message} />}
      {notification && type && isProviderType(type) && (
        <>
          <p>
            Type: <strong>{PROVIDER_LABELS[type]}</strong>
          </p>
          {mayWrite ? <Edit channel={notification} type={type} /> : <Details channel={notification} type={type} />}
          {mayWrite && <Actions channel={notification} />}
        </>
      )}
      <h2>Delivery history</h2>
      {deliveries.error && <FormMessage message={deliveries.error.message} />}
      {deliveries.data && <Deliveries deliveries={deliveries.data.deliveries} caption="Deliveries of this channel" />}
    </Page>
  );
}

/** What a viewer sees: the fields as the API answers them, no control. */
function Details({ channel, type }: { channel: Notification; type: ProviderType }) {
  const values = valuesOf(channel, type);
  const monitors = useMonitorNames();
  return (
    <dl>
      {fieldsOf(type).map((f) => (
        <div key={f.name}>
          <dt>{f.label}</dt>
          <dd>
            {f.name === "headers"
              ? (values.config.headers as { key: string }[]).map((h) => h.key).join(", ") || "none"
              : String(values.config[f.name] ?? "") || "—"}
          </dd>
        </div>
      ))}
      <dt>Monitors it covers</dt>
      <dd>{channel.monitorIds.map((m) => monitors.get(m) ?? m).join(", ") || "none"}</dd>
      <dt>Reminders</dt>
      <dd>{channel.reminderMinutes ? `every ${channel.reminderMinutes} minutes until acknowledged` : "none"}</dd>
    </dl>
  );
}

function Edit({ channel, type }: { channel: Notification; type: ProviderType }) {
  const client = useClient(NotificationService);
  const queries = useQueryClient();
  const [saved, setSaved] = useState<string | null>(null);
  const save = async (values: ChannelValues, changed: ChangedParts) => {
    // Only what changed is sent: the block (with its untouched secrets as answered, which the API keeps) only when one of its fields did.
    const paths = [
      ...(changed.name ? ["name"] : []),
      ...(changed.monitorIds ? ["monitor_ids"] : []),
      ...(changed.reminderMinutes ? ["reminder_minutes"] : []),
      ...(changed.block ? [type] : []),
    ];
    if (paths.length === 0) {
      setSaved("Nothing changed.");
      return;
    }
    await client.updateNotification({
      id: channel.id,
      notification: { name: values.name, monitorIds: values.monitorIds, reminderMinutes: values.reminderMinutes, ...(changed.block ? { provider: providerOf(type, values.config) } : {}) },
      updateMask: { paths },
    });
    await queries.invalidateQueries();
    setSaved("Saved.");
  };
  return (
    <>
      <ChannelForm key={channel.updatedAt?.seconds.toString()} type={type} initial={valuesOf(channel, type)} submit={save} submitLabel="Save the channel" />
      <p role="status">{saved}</p>
    </>
  );
}

function Actions({ channel }: { channel: Notification }) {
  const client = useClient(NotificationService);
  const action = useAction();
  const navigate = useNavigate();
  const [answer, setAnswer] = useState<string | null>(null);
  const test = () =>
    action.run(async () => {
      setAnswer(null);
      const result = await client.sendTestNotification({ id: channel.id });
      setAnswer(result.success ? "Delivered: the provider accepted the test message." : `Not delivered: ${result.errorMessage}`);
    });
  const remove = async () => {
    if (await action.run(() => client.deleteNotification({ id: channel.id }), `Delete the channel ${channel.name || channel.id}? Its monitors stop telling it anything.`)) {
      await navigate("/channels");
    }
  };
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Test and delete</h2>
      {action.message}
      <div className="actions">
        <button type="button" onClick={() => void test()}>
          Send a test message
        </button>
        <button type="button" className="secondary" onClick={() => void remove()}>
          Delete the channel
        </button>
      </div>
      <p role="status" data-testid="test-answer">
        {answer}
      </p>
    </section>
  );
}
