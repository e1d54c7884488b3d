import { roleCan } from "@vigil/domain/accounts";
import { PROVIDER_TYPES, type ProviderType } from "@vigil/domain/notifications";
import { NotificationService } from "@vigil/proto/notification";
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link, useNavigate } from "react-router";
import { useRole } from "../../SignedIn";
import { Page } from "../../ui";
import { useClient } from "../../controls";
import { ChannelForm, type ChannelValues } from "./ChannelForm";
import { blockName, fieldsOf, PROVIDER_LABELS } from "./providers";

/** A new channel's values for a type: its fields empty, a choice at its first option. */
const emptyValues = (type: ProviderType): ChannelValues => ({
  name: "",
  monitorIds: [],
  reminderMinutes: 0,
  config: Object.fromEntries(fieldsOf(type).map((f) => [f.name, f.name === "headers" ? [] : (f.options?.[0] ?? "")])),
});

/** The block of a channel as the API takes it: the provider's case and its fields. */
export const providerOf = (type: ProviderType, config: Record<string, unknown>) => ({ case: blockName(type), value: config }) as never;

/** Choose one of the 12 types, then fill its own fields. */
export default function NewChannel() {
  const [type, setType] = useState<ProviderType>("webhook");
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const client = useClient(NotificationService);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const role = useRole();

  const create = async (values: ChannelValues) => {
    const answer = await client.createNotification({
      notification: {
        name: values.name,
        providerType: type,
        monitorIds: values.monitorIds,
        reminderMinutes: values.reminderMinutes,
        provider: providerOf(type, values.config),
      },
    });
    await queries.invalidateQueries();
    const created = answer.notification!.id;
    // A webhook's signing secret is answered this once: it stays on screen until the person moves on.
    if (answer.signingSecret) setSecret({ id: created, secret: answer.signingSecret });
    else await navigate(`/channels/${created}`);
  };

  if (secret) {
    return (
      <Page title="Channel added">
        <section className="once" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Its signing secret</h2>
          <p>Vigil signs every call with it (Standard Webhooks). Copy it now: it is shown this once.</p>
          <p>
            <code data-testid="signing-secret">{secret.secret}</code>
          </p>
        </section>
        <p>
          <Link to={`/channels/${secret.id}`}>Go to the channel</Link>
        </p>
      </Page>
    );
  }
  if (!role || !roleCan(role, "write")) {
    return (
      <Page title="Add a channel">
        <p>Your role ({role ?? "none"}) may not add channels.</p>
      </Page>
    );
  }
  return (
    <Page title="Add a channel">
      <div className="field">
        <label htmlFor={id}>Type</label>
        <select id={id} value={type} onChange={(e) => setType(e.target.value as ProviderType)}>
          {PROVIDER_TYPES.map((t) => (
            <option key={t} value={t}>
              {PROVIDER_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <ChannelForm key={type} type={type} initial={emptyValues(type)} submit={create} submitLabel={`Add the ${PROVIDER_LABELS[type]} channel`} />
    </Page>
  );
}
