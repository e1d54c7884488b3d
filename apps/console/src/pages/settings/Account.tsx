import { useQuery } from "@connectrpc/connect-query";
import { ACCOUNTS } from "@vigil/domain/accounts";
import { AccountService, type BeginTotpEnrolmentResponse } from "@vigil/proto/account";
import QRCode from "qrcode";
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { nameRule, newPasswordRule } from "../../fields";
import { useSignedIn } from "../../SignedIn";
import { Field, Form, FormMessage, NewPasswordField, Page, brokenRules, text, useForm } from "../../ui";
import { Table, useAction, useClient, useSubmit, when } from "../../controls";

/** The signed-in person's own account: name, password, second factor, sessions. */
export default function Account() {
  const { profile } = useSignedIn();
  // Held here, above the profile's switch between enrolling and disabling, which the enrolment itself flips.
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <Page title="Your account" wide>
      <h2>Profile</h2>
      <ProfileForm name={profile.name} />
      <h2>Password</h2>
      <PasswordForm />
      <h2>Second factor</h2>
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onKept={() => setRecoveryCodes(null)} />
      ) : profile.totpEnabled ? (
        <DisableTotp />
      ) : (
        <EnrolTotp onEnabled={setRecoveryCodes} />
      )}
      <h2>Sessions</h2>
      <Sessions />
    </Page>
  );
}

function ProfileForm({ name }: { name: string }) {
  const client = useClient(AccountService);
  const submit = useSubmit(["name"]);
  const form = useForm(async (data) => {
    const name = text(data, "name");
    return brokenRules({ name: nameRule(name) }) ?? (await submit(() => client.updateProfile({ name })));
  });
  return (
    <Form form={form} submit="Save name">
      <Field name="name" label="Your name" autoComplete="name" defaultValue={name} error={form.errors.name} />
    </Form>
  );
}

function PasswordForm() {
  const client = useClient(AccountService);
  const submit = useSubmit(["current_password", "new_password"]);
  const form = useForm(async (data) => {
    const currentPassword = text(data, "current_password");
    const newPassword = text(data, "new_password");
    const refused =
      brokenRules({ new_password: await newPasswordRule(newPassword) }) ?? (await submit(() => client.changePassword({ currentPassword, newPassword })));
    if (refused) return refused;
    form.ref.current?.reset();
    return { message: "Password changed; your other sessions have ended." };
  });
  return (
    <Form form={form} submit="Change password">
      <Field name="current_password" label="Current password" type="password" autoComplete="current-password" error={form.errors.current_password} />
      <NewPasswordField name="new_password" label="New password" error={form.errors.new_password} />
    </Form>
  );
}

/** The otpauth URL as a QR code, drawn on a canvas (no inline style or data: URL, which the CSP refuses). */
function QrCode({ url }: { url: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (canvas.current) void QRCode.toCanvas(canvas.current, url, { margin: 2, width: 192 });
  }, [url]);
  return <canvas ref={canvas} role="img" aria-label="QR code of the secret, for your authenticator app" />;
}

function EnrolTotp({ onEnabled }: { onEnabled: (recoveryCodes: string[]) => void }) {
  const client = useClient(AccountService);
  const [pending, setPending] = useState<BeginTotpEnrolmentResponse | null>(null);
  const begin = useForm(async () => {
    try {
      setPending(await client.beginTotpEnrolment({}));
    } catch (error) {
      return { message: (error as Error).message };
    }
  });
  const submit = useSubmit(["code"]);
  const confirm = useForm((data) => submit(async () => onEnabled((await client.confirmTotpEnrolment({ code: text(data, "code") })).recoveryCodes)));

  if (!pending) {
    return (
      <>
        <p>Sign-in asks only for your password. Add a code of an authenticator app (TOTP).</p>
        <Form form={begin} submit="Set up an authenticator app" />
      </>
    );
  }
  return (
    <>
      <p>Scan this code with your authenticator app, or type the secret into it, then enter the code it shows.</p>
      <QrCode url={pending.otpauthUrl} />
      <p>
        Secret: <code data-testid="totp-secret">{pending.secret}</code>
      </p>
      <Form form={confirm} submit="Turn on">
        <Field name="code" label="Code" inputMode="numeric" autoComplete="one-time-code" hint={`The ${ACCOUNTS.totpDigits}-digit code of your app.`} error={confirm.errors.code} />
      </Form>
    </>
  );
}

/** The recovery codes, which the API answers this once: on screen until the person says they have kept them. */
function RecoveryCodes({ codes, onKept }: { codes: readonly string[]; onKept: () => void }) {
  return (
    <section className="once" aria-labelledby="recovery-heading">
      <h3 id="recovery-heading">Your recovery codes</h3>
      <p>The second factor is on. Keep these codes somewhere safe: each signs in once without your app, and they are shown this once.</p>
      <ul data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onKept}>
        I have kept them
      </button>
    </section>
  );
}

function DisableTotp() {
  const client = useClient(AccountService);
  const submit = useSubmit(["password"]);
  const form = useForm((data) => submit(() => client.disableTotp({ password: text(data, "password") })));
  return (
    <>
      <p>Sign-in asks for a code of your authenticator app.</p>
      <Form form={form} submit="Turn off the second factor">
        <Field name="password" label="Password" type="password" autoComplete="current-password" error={form.errors.password} />
      </Form>
    </>
  );
}

function Sessions() {
  const sessions = useQuery(AccountService.method.listSessions, {}, { retry: false });
  const client = useClient(AccountService);
  const action = useAction();
  const navigate = useNavigate();
  const end = async (id: string, current: boolean) => {
    const ended = await action.run(() => client.endSession({ id }), current ? "End this session? You will be signed out." : undefined);
    if (ended && current) void navigate("/sign-in");
  };
  return (
    <>
      {sessions.error && <FormMessage message={sessions.error.message} />}
      {action.message}
      {sessions.data && (
        <Table caption="Sessions" head={["Browser", "Address", "Signed in", "Last seen", "Actions"]}>
          {sessions.data.sessions.map((s) => (
            <tr key={s.id}>
              <td>
                {s.userAgent || "—"}
                {s.current && <strong> (this one)</strong>}
              </td>
              <td>{s.address || "—"}</td>
              <td>{when(s.createdAt)}</td>
              <td>{when(s.lastSeenAt)}</td>
              <td>
                <button type="button" className="secondary" onClick={() => void end(s.id, s.current)}>
                  {s.current ? "Sign out here" : `End session from ${s.address || "unknown address"}`}
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
