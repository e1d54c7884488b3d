import { useQuery } from "@connectrpc/connect-query";
import { ROLES, SSO_DEFAULT_ROLES } from "@vigil/domain/accounts";
import { SsoService, type GetSsoSettingsResponse } from "@vigil/proto/account";
import { Field, Form, FormMessage, Page, text, useForm } from "../../ui";
import { SelectField, useClient, useSubmit } from "../../controls";

const FIELDS = ["issuer_url", "client_id", "client_secret", "allowed_domains", "default_role", "role_claim", "role_mapping", "enforced", "enabled"] as const;

/** Lines of a text area, blanks dropped. */
const lines = (value: string) =>
  value
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** The workspace's single sign-on (owners only): every setting, the client secret write-only. */
export default function Sso() {
  const answer = useQuery(SsoService.method.getSsoSettings, {}, { retry: false });
  return (
    <Page title="Single sign-on" wide>
      {answer.error && <FormMessage message={answer.error.message} />}
      {answer.data && <SsoForm answer={answer.data} />}
    </Page>
  );
}

function SsoForm({ answer }: { answer: GetSsoSettingsResponse }) {
  const client = useClient(SsoService);
  const submit = useSubmit(FIELDS);
  const saved = answer.settings;
  const form = useForm(async (data) => {
    const refused = await submit(() =>
      client.setSsoSettings({
        settings: {
          issuerUrl: text(data, "issuer_url"),
          clientId: text(data, "client_id"),
          clientSecret: text(data, "client_secret"),
          allowedDomains: lines(text(data, "allowed_domains")),
          defaultRole: text(data, "default_role"),
          roleClaim: text(data, "role_claim"),
          roleMapping: Object.fromEntries(lines(text(data, "role_mapping")).map((line) => line.split("=").map((part) => part.trim()) as [string, string])),
          enforced: data.has("enforced"),
          enabled: data.has("enabled"),
        },
      }),
    );
    return refused ?? { message: "Saved." };
  });
  const mapping = Object.entries(saved?.roleMapping ?? {})
    .map(([value, role]) => `${value} = ${role}`)
    .join("\n");
  return (
    <>
      <dl>
        <dt>Redirect URI (give it to your provider)</dt>
        <dd>
          <code data-testid="redirect-uri">{answer.redirectUri}</code>
        </dd>
        <dt>Sign-in address</dt>
        <dd>
          <code>{answer.signInUrl}</code>
        </dd>
      </dl>
      <Form form={form} submit="Save settings">
        <Field name="issuer_url" label="Issuer URL" type="url" defaultValue={saved?.issuerUrl} error={form.errors.issuer_url} />
        <Field name="client_id" label="Client ID" autoComplete="off" defaultValue={saved?.clientId} error={form.errors.client_id} />
        <Field
          name="client_secret"
          label="Client secret"
          type="password"
          autoComplete="off"
          hint={saved?.clientSecretSet ? "A secret is stored and never shown; leave this empty to keep it." : "No secret is stored."}
          error={form.errors.client_secret}
        />
        <TextArea name="allowed_domains" label="Allowed email domains" hint="One a line; none: any domain." defaultValue={saved?.allowedDomains.join("\n")} error={form.errors.allowed_domains} />
        <SelectField name="default_role" label="Default role" options={SSO_DEFAULT_ROLES} defaultValue={saved?.defaultRole || "viewer"} error={form.errors.default_role} />
        <Field name="role_claim" label="Role claim" hint='The ID token claim the mapping reads, e.g. "groups".' defaultValue={saved?.roleClaim} error={form.errors.role_claim} />
        <TextArea name="role_mapping" label="Role mapping" hint={`One "claim value = role" a line; roles: ${ROLES.join(", ")}.`} defaultValue={mapping} error={form.errors.role_mapping} />
        <Check name="enabled" label="Enabled" defaultChecked={saved?.enabled} error={form.errors.enabled} />
        <Check name="enforced" label="Enforced: SSO is the only way in" defaultChecked={saved?.enforced} error={form.errors.enforced} />
      </Form>
    </>
  );
}

function TextArea({ name, label, hint, defaultValue, error }: { name: string; label: string; hint: string; defaultValue: string | undefined; error: string | undefined }) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <p id={`${name}-hint`} className="hint">
        {hint}
      </p>
      <textarea id={name} name={name} rows={3} defaultValue={defaultValue} aria-invalid={error ? true : undefined} aria-describedby={`${name}-hint${error ? ` ${name}-error` : ""}`} />
      {error && (
        <p id={`${name}-error`} className="error">
          {label}: {error}
        </p>
      )}
    </div>
  );
}

function Check({ name, label, defaultChecked, error }: { name: string; label: string; defaultChecked: boolean | undefined; error: string | undefined }) {
  return (
    <div className="field check">
      <input id={name} name={name} type="checkbox" defaultChecked={defaultChecked} aria-invalid={error ? true : undefined} aria-describedby={error ? `${name}-error` : undefined} />
      <label htmlFor={name}>{label}</label>
      {error && (
        <p id={`${name}-error`} className="error">
          {label}: {error}
        </p>
      )}
    </div>
  );
}
