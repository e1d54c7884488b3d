import { Code, ConnectError } from "@connectrpc/connect";
import { useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { isRole, roleCan, type Role } from "@vigil/domain/accounts";
import type { Profile, Workspace } from "@vigil/proto/account";
import { AccountService } from "@vigil/proto/account";
import { Suspense, createContext, useContext, useEffect, useState } from "react";
import { NavLink, Navigate, Outlet, useNavigate, useSearchParams } from "react-router";
import { authPost, chosenWorkspace } from "./api";
import { FormMessage, Page } from "./ui";

interface SignedInState {
  profile: Profile;
  /** The workspace acted in, undefined while the person belongs to none. */
  workspace: (Workspace & { role: Role }) | undefined;
}

const loading = <p role="status">Loading…</p>;

const SignedInContext = createContext<SignedInState | null>(null);

/** Who is signed in and the workspace they act in, for the pages inside `SignedIn`. */
export function useSignedIn(): SignedInState {
  const state = useContext(SignedInContext);
  if (!state) throw new Error("useSignedIn outside <SignedIn>");
  return state;
}

/** The role in the chosen workspace, for deciding which controls a page shows (the API decides again). */
export const useRole = (): Role | undefined => useSignedIn().workspace?.role;

/**
 * The frame of every page behind sign-in: a header with the workspace switcher
 * and the links to the pages, then the page. A person without a session is sent
 * to sign-in; the links a role may not use are not shown.
 */
export function SignedIn() {
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
  const [chosen, setChosen] = useState(chosenWorkspace.get());
  const list = workspaces.data?.workspaces ?? [];
  const current = list.find((w) => w.slug === chosen) ?? list[0];
  useEffect(() => {
    // A stored slug the person no longer belongs to gives way to their first workspace.
    if (current && current.slug !== chosen) {
      chosenWorkspace.set(current.slug);
      setChosen(current.slug);
    }
  }, [current, chosen]);

  const error = profile.error ?? workspaces.error;
  if (error instanceof ConnectError && error.code === Code.Unauthenticated) return <Navigate to="/sign-in" replace />;
  if (error || !profile.data?.profile || !workspaces.data) {
    return (
      <Page title="Vigil">
        {error ? <FormMessage message={error.message} /> : loading}
      </Page>
    );
  }
  const workspace = current && isRole(current.role) ? { ...current, role: current.role } : undefined;
  return (
    <SignedInContext.Provider value={{ profile: profile.data.profile, workspace }}>
      <header className="top">
        <NavLink to="/" className="brand-link">
          Vigil
        </NavLink>
        <nav aria-label="Pages">
          <ul>
            <li>
              <NavLink to="/monitors">Monitors</NavLink>
            </li>
            {workspace && roleCan(workspace.role, "write") && <li><NavLink to="/monitors/new">New monitor</NavLink></li>}
            <li>
              <NavLink to="/incidents">Incidents</NavLink>
            </li>
            <li>
              <NavLink to="/maintenance">Maintenance</NavLink>
            </li>
            <li>
              <NavLink to="/channels">Channels</NavLink>
            </li>
            <li>
              <NavLink to="/status-pages">Status pages</NavLink>
            </li>
            <li>
              <NavLink to="/regions">Regions</NavLink>
            </li>
            <li>
              <NavLink to="/settings/members">Members</NavLink>
            </li>
            {workspace && roleCan(workspace.role, "keys") && (
              <li>
                <NavLink to="/settings/api-keys">API keys</NavLink>
              </li>
            )}
            {workspace && roleCan(workspace.role, "own") && (
              <li>
                <NavLink to="/settings/sso">Single sign-on</NavLink>
              </li>
            )}
            {workspace && roleCan(workspace.role, "audit") && (
              <li>
                <NavLink to="/settings/audit">Audit log</NavLink>
              </li>
            )}
            <li>
              <NavLink to="/settings/account">Your account</NavLink>
            </li>
          </ul>
        </nav>
        <WorkspaceSwitcher workspaces={list} current={workspace} onChoose={setChosen} />
        <p className="who" data-testid="signed-in-as">
          Signed in as <NavLink to="/settings/account">{profile.data.profile.name}</NavLink>
        </p>
        <SignOut />
      </header>
      {/* The pages are chunks of their own (React.lazy in main.tsx). */}
      <Suspense
        fallback={
          <Page title="Vigil">
            {loading}
          </Page>
        }
      >
        <Outlet />
      </Suspense>
    </SignedInContext.Provider>
  );
}

function WorkspaceSwitcher({ workspaces, current, onChoose }: { workspaces: readonly Workspace[]; current: SignedInState["workspace"]; onChoose: (slug: string) => void }) {
  const queries = useQueryClient();
  if (!current) return <p className="switcher">You belong to no workspace yet: ask an admin of one for an invitation.</p>;
  const choose = (slug: string) => {
    chosenWorkspace.set(slug);
    onChoose(slug);
    // What the console shows belongs to a workspace: it is all asked again with the new header.
    void queries.invalidateQueries();
  };
  return (
    <div className="switcher">
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
    </div>
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
    <div className="sign-out">
      <FormMessage message={message} />
      <button type="button" className="secondary" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  );
}
