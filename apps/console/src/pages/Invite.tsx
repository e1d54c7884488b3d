import { useMutation } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { MemberService } from "@vigil/proto/account";
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { chosenWorkspace, refusalOfError } from "../api";
import { emailRule, nameRule, newPasswordRule, requiredRule } from "../fields";
import { CodeField, Field, Form, NewPasswordField, Page, brokenRules, shown, text, useForm } from "../ui";

/** /app/invite?token=: accepting makes the account (or adds the workspace to an existing one) and signs in. */
export function Invite() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const queries = useQueryClient();
  const accept = useMutation(MemberService.method.acceptInvitation);
  // Asked only when the API asks: the first owner's invitation names no address, and an account with a second factor needs its code.
  const [asks, setAsks] = useState({ email: false, totp: false });

  const form = useForm(async (data) => {
    const input = { token, name: text(data, "name"), password: text(data, "password"), email: text(data, "email"), totp: text(data, "totp").trim() };
    const broken = brokenRules({
      name: nameRule(input.name),
      password: await newPasswordRule(input.password),
      email: asks.email ? emailRule(input.email) : null,
      totp: asks.totp ? requiredRule(input.totp) : null,
    });
    if (broken) return broken;
    try {
      const { workspaceSlug } = await accept.mutateAsync(input);
      chosenWorkspace.set(workspaceSlug);
      queries.clear();
      void navigate("/");
    } catch (error) {
      const refusal = refusalOfError(error);
      const next = { email: asks.email || "email" in refusal.fields, totp: asks.totp || "totp" in refusal.fields };
      setAsks(next);
      return shown(refusal, ["name", "password", ...(next.email ? ["email"] : []), ...(next.totp ? ["totp"] : [])]);
    }
  });

  if (!token) {
    return (
      <Page title="Accept an invitation">
        <p>This page opens from the link of an invitation, which names its token. Open the link from your mail again.</p>
      </Page>
    );
  }
  return (
    <Page title="Accept an invitation">
      <p>Choose your name and a password. If you already have a Vigil account at this address, enter its password: the workspace is added to it.</p>
      <Form form={form} submit="Accept and sign in">
        <Field name="name" label="Your name" autoComplete="name" error={form.errors.name} />
        {asks.email && <Field name="email" label="Email" type="email" autoComplete="username" error={form.errors.email} />}
        <NewPasswordField name="password" label="Password" error={form.errors.password} />
        {asks.totp && <CodeField error={form.errors.totp} />}
      </Form>
    </Page>
  );
}
