import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { authPost } from "../api";
import { emailRule, requiredRule } from "../fields";
import { CodeField, Field, Form, Page, brokenRules, shown, text, useForm } from "../ui";

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
        <Form form={code} submit="Sign in">
          <CodeField error={code.errors.totp} autoFocus />
        </Form>
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
      <Form form={password} submit="Sign in">
        <Field name="email" label="Email" type="email" autoComplete="username" error={password.errors.email} />
        <Field name="password" label="Password" type="password" autoComplete="current-password" error={password.errors.password} />
      </Form>
      <p>
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
      <section aria-labelledby="sso-heading">
        <h2 id="sso-heading">Single sign-on</h2>
        <Form form={sso} submit="Sign in with SSO">
          <Field name="workspace" label="Workspace" hint="Its short name, as in the workspace's address, e.g. acme." autoCapitalize="none" error={sso.errors.workspace} />
        </Form>
      </section>
    </Page>
  );
}
