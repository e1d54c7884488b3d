import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { authPost } from "../api";
import { emailRule, requiredRule } from "../fields";
import { Field, FormMessage, Page, brokenRules, shown, text, useForm } from "../ui";

export function SignIn() {
  const navigate = useNavigate();
  const queries = useQueryClient();
  // After totp_required the same email and password are sent again with the code.
  const [credentials, setCredentials] = useState<{ email: string; password: string } | null>(null);

  const password = useForm(async (data) => {
    const email = text(data, "email");
    const pass = text(data, "password");
    const broken = brokenRules({ email: emailRule(email), password: requiredRule(pass) });
    if (broken) return broken;
    return send({ email, password: pass }, ["email", "password"]);
  });
  const code = useForm(async (data) => {
    const totp = text(data, "totp").trim();
    const broken = brokenRules({ totp: requiredRule(totp) });
    if (broken) return broken;
    return send({ ...credentials!, totp }, ["totp"]);
  });

  const send = async (body: { email: string; password: string; totp?: string }, fields: string[]) => {
    const answer = await authPost("/v1/auth/sign-in", body);
    if (answer.ok) {
      queries.clear();
      void navigate("/");
      return;
    }
    if (answer.refusal.code === "totp_required") {
      setCredentials({ email: body.email, password: body.password });
      return;
    }
    return shown(answer.refusal, fields);
  };

  const sso = useForm(async (data) => {
    const slug = text(data, "workspace").trim();
    const broken = brokenRules({ workspace: requiredRule(slug) });
    if (broken) return broken;
    // A navigation, not a form post: the provider's page is on another origin, which form-action 'self' refuses.
    location.assign(`/v1/auth/oidc/${encodeURIComponent(slug)}/start`);
  });

  if (credentials) {
    return (
      <Page title="Enter your code">
        <form ref={code.ref} onSubmit={code.onSubmit} noValidate>
          <FormMessage message={code.message} />
          <Field
            name="totp"
            label="Code"
            hint="The 6-digit code of your authenticator app, or one of your recovery codes."
            autoComplete="one-time-code"
            inputMode="text"
            autoFocus
            error={code.errors.totp}
          />
          <button type="submit" disabled={code.busy}>
            Sign in
          </button>
        </form>
        <p>
          <button type="button" className="link" onClick={() => setCredentials(null)}>
            Use another account
          </button>
        </p>
      </Page>
    );
  }

  return (
    <Page title="Sign in">
      <form ref={password.ref} onSubmit={password.onSubmit} noValidate>
        <FormMessage message={password.message} />
        <Field name="email" label="Email" type="email" autoComplete="username" error={password.errors.email} />
        <Field name="password" label="Password" type="password" autoComplete="current-password" error={password.errors.password} />
        <button type="submit" disabled={password.busy}>
          Sign in
        </button>
      </form>
      <p>
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
      <section aria-labelledby="sso-heading">
        <h2 id="sso-heading">Single sign-on</h2>
        <form ref={sso.ref} onSubmit={sso.onSubmit} noValidate>
          <FormMessage message={sso.message} />
          <Field name="workspace" label="Workspace" hint="Its short name, as in the workspace's address, e.g. acme." autoCapitalize="none" error={sso.errors.workspace} />
          <button type="submit">Sign in with SSO</button>
        </form>
      </section>
    </Page>
  );
}
