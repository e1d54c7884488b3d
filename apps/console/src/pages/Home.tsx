import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate } from "react-router";
import { authPost } from "../api";
import { useSignedIn } from "../SignedIn";
import { FormMessage, Page } from "../ui";

/** After sign-in: who is signed in, and sign-out (the workspace switcher is in the header of `SignedIn`). */
export function Home() {
  const { profile } = useSignedIn();
  return (
    <Page title={`Hello, ${profile.name}`}>
      <p>
        Signed in as <strong>{profile.email}</strong>
        {profile.emailVerified ? "" : " (not verified yet)"}.
      </p>
      <SignOut />
    </Page>
  );
}

function SignOut() {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  const signOut = async () => {
    const answer = await authPost("/v1/auth/sign-out", {});
    if (!answer.ok) return setMessage(answer.refusal.message);
    queries.clear();
    void navigate("/sign-in");
  };
  return (
    <>
      <FormMessage message={message} />
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </>
  );
}
