import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { authPost } from "../api";
import { Form, Page, useForm } from "../ui";

/** /app/verify-email?token=: a button rather than a request on load, so that a mail scanner opening the link uses nothing. */
export function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [verified, setVerified] = useState(false);
  const form = useForm(async () => {
    const answer = await authPost("/v1/auth/verify-email", { token });
    if (answer.ok) return setVerified(true);
    return { message: answer.refusal.message };
  });

  if (verified) {
    return (
      <Page title="Email verified">
        <p role="status">Your email address is verified.</p>
        <p>
          <Link to="/">Go to Vigil</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Verify your email">
      {!token && <p>This page opens from the link in your verification mail, which names its token.</p>}
      <Form form={form} submit="Verify my email address" disabled={!token} />
    </Page>
  );
}
