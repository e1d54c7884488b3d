import { Code, ConnectError } from "@connectrpc/connect";
import { useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { AccountService } from "@vigil/proto/account";
import { useEffect, useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { authPost, chosenWorkspace } from "../api";
import { FormMessage, Page } from "../ui";

/** After sign-in: who is signed in, the workspace they act in, and sign-out. */
export function Home() {
  const [params, setParams] = useSearchParams();
  const fromCallback = params.get("workspace");
  // The SSO callback names the workspace signed in to; it becomes the chosen one here, in render, so that the
  // queries below already send it.
  if (fromCallback) chosenWorkspace.set(fromCallback);
  useEffect(() => {
    if (fromCallback) setParams({}, { replace: true });
  }, [fromCallback, setParams]);

  const profile = useQuery(AccountService.method.getProfile, {}, { retry: false });
  const workspaces = useQuery(AccountService.method.listWorkspaces, {}, { retry: false });
  if (profile.error instanceof ConnectError && profile.error.code === Code.Unauthenticated) return <Navigate to="/sign-in" replace />;
  if (profile.error || workspaces.error) {
    return (
      <Page title="Vigil">
        <FormMessage message={(profile.error ?? workspaces.error)!.message} />
      </Page>
    );
  }
  if (!profile.data || !workspaces.data) {
    return (
      <Page title="Vigil">
        <p role="status">Loading…</p>
      </Page>
    );
  }
  const person = profile.data.profile!;
  return (
    <Page title={`Hello, ${person.name}`}>
      <p>
        Signed in as <strong>{person.email}</strong>
        {person.emailVerified ? "" : " (not verified yet)"}.
      </p>
      <WorkspaceSwitcher workspaces={workspaces.data.workspaces} />
      <SignOut />
    </Page>
  );
}

function WorkspaceSwitcher({ workspaces }: { workspaces: readonly { slug: string; name: string; role: string }[] }) {
  const queries = useQueryClient();
  const [chosen, setChosen] = useState(chosenWorkspace.get());
  const current = workspaces.find((w) => w.slug === chosen) ?? workspaces[0];
  useEffect(() => {
    // A stored slug the person no longer belongs to gives way to their first workspace.
    if (current && current.slug !== chosen) {
      chosenWorkspace.set(current.slug);
      setChosen(current.slug);
    }
  }, [current, chosen]);
  if (!current) return <p>You belong to no workspace yet: ask an admin of one for an invitation.</p>;

  const choose = (slug: string) => {
    chosenWorkspace.set(slug);
    setChosen(slug);
    // What the console shows belongs to a workspace: it is all asked again with the new header.
    void queries.invalidateQueries();
  };
  return (
    <section aria-labelledby="workspace-heading">
      <h2 id="workspace-heading">Workspace</h2>
      <label htmlFor="workspace">Act in</label>
      <select id="workspace" value={current.slug} onChange={(e) => choose(e.target.value)}>
        {workspaces.map((w) => (
          <option key={w.slug} value={w.slug}>
            {w.name} ({w.slug})
          </option>
        ))}
      </select>
      <p data-testid="current-workspace" role="status">
        You act in <strong>{current.name}</strong> as <strong>{current.role}</strong>.
      </p>
    </section>
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
