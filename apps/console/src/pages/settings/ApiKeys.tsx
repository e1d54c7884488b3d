import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { API_KEY_SCOPES } from "@vigil/domain/api-keys";
import { ApiKeyService, type ApiKey } from "@vigil/proto/account";
import { useState } from "react";
import { Field, Form, FormMessage, Page, text, useForm } from "../../ui";
import { SelectField, Table, useAction, useClient, useSubmit, when } from "../../controls";

/** The workspace's API keys (admins and owners): list, create (the key shown once), revoke. */
export default function ApiKeys() {
  const keys = useQuery(ApiKeyService.method.listApiKeys, {}, { retry: false });
  const client = useClient(ApiKeyService);
  const action = useAction();
  const [created, setCreated] = useState<string | null>(null);

  return (
    <Page title="API keys" wide>
      {keys.error && <FormMessage message={keys.error.message} />}
      {action.message}
      {keys.data?.apiKeys.length === 0 && <p>No key yet.</p>}
      {!!keys.data?.apiKeys.length && (
        <Table caption="API keys" head={["Name", "Prefix", "Scope", "Created by", "Created", "Last used", "Expires", "Actions"]}>
          {keys.data.apiKeys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.scopes.join(", ") || "write"}</td>
              <td>{k.createdBy?.email || "vigil-admin"}</td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.lastUsedAt)}</td>
              <td>{k.expiresAt ? when(k.expiresAt) : "never"}</td>
              <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : <Revoke apiKey={k} run={() => action.run(() => client.revokeApiKey({ id: k.id }), `Revoke the key ${k.name}? Whatever uses it stops working.`)} />}</td>
            </tr>
          ))}
        </Table>
      )}
      <h2>Create a key</h2>
      {created && <NewKey secret={created} />}
      <CreateKey onCreated={setCreated} />
    </Page>
  );
}

const Revoke = ({ apiKey, run }: { apiKey: ApiKey; run: () => void }) => (
  <button type="button" className="secondary" onClick={run}>
    Revoke {apiKey.name}
  </button>
);

/** The whole key, which the API answers this once. */
function NewKey({ secret }: { secret: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied("Copied."),
      () => setCopied("Copying was refused: select the key and copy it."),
    );
  return (
    <section className="once" aria-labelledby="new-key-heading">
      <h3 id="new-key-heading">Your new key</h3>
      <p>Copy it now: it is shown this once, and only its hash is kept.</p>
      <p>
        <code data-testid="new-key">{secret}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy the key
      </button>
      <p role="status">{copied}</p>
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: string) => void }) {
  const client = useClient(ApiKeyService);
  const submit = useSubmit(["name", "scopes", "expires_at"]);
  const form = useForm(async (data) => {
    const name = text(data, "name");
    const expiry = text(data, "expires_at");
    // The API checks the fields (newApiKeyFields) and names the one it refuses.
    const refused = await submit(async () => {
      const answer = await client.createApiKey({
        name,
        scopes: [text(data, "scopes")],
        // The end of the chosen day, in the person's time zone.
        expiresAt: expiry ? timestampFromDate(new Date(`${expiry}T23:59:59`)) : undefined,
      });
      onCreated(answer.key);
    });
    if (!refused) form.ref.current?.reset();
    return refused;
  });
  return (
    <Form form={form} submit="Create key">
      <Field name="name" label="Name" autoComplete="off" error={form.errors.name} />
      <SelectField name="scopes" label="Scope" options={API_KEY_SCOPES} defaultValue="read" error={form.errors.scopes} />
      <Field name="expires_at" label="Expires (optional)" type="date" hint="The key stops working at the end of this day." error={form.errors.expires_at} />
    </Form>
  );
}
