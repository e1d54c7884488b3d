import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { authPost } from "../api";
import { emailRule, newPasswordRule } from "../fields";
import { Field, Form, NewPasswordField, Page, brokenRules, shown, text, useForm } from "../ui";

/** /app/reset-password asks for a mailed link; /app/reset-password?token= (the link) sets the new password. */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get("token");
  return token ? <ChooseNewPassword token={token} /> : <AskForLink />;
}

function AskForLink() {
  const [sent, setSent] = useState<string | null>(null);
  const form = useForm(async (data) => {
    const email = text(data, "email");
    const broken = brokenRules({ email: emailRule(email) });
    if (broken) return broken;
    const answer = await authPost<{ message: string }>("/v1/auth/password-reset", { email });
    if (answer.ok) return setSent(answer.body.message);
    return shown(answer.refusal, ["email"]);
  });
  return (
    <Page title="Reset your password">
      {sent ? (
        <p role="status">{sent}</p>
      ) : (
        <Form form={form} submit="Mail me a link">
          <Field name="email" label="Email" type="email" autoComplete="username" hint="We mail a link that lets you choose a new password." error={form.errors.email} />
        </Form>
      )}
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </Page>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const form = useForm(async (data) => {
    const newPassword = text(data, "newPassword");
    const broken = brokenRules({ newPassword: await newPasswordRule(newPassword) });
    if (broken) return broken;
    const answer = await authPost("/v1/auth/password-reset/confirm", { token, newPassword });
    if (answer.ok) return setDone(true);
    return shown(answer.refusal, ["newPassword"]);
  });
  if (done) {
    return (
      <Page title="Password changed">
        <p role="status">Your password is changed, and every session of your account has ended.</p>
        <p>
          <Link to="/sign-in">Sign in</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Choose a new password">
      <Form form={form} submit="Change my password">
        <NewPasswordField name="newPassword" label="New password" error={form.errors.newPassword} />
      </Form>
    </Page>
  );
}
