import { roleCan } from "@vigil/domain/accounts";
import { Link } from "react-router";
import { useRole } from "../../../SignedIn";
import { Page } from "../../../ui";

/** Whether the role in the chosen workspace may change monitors (the API decides again). */
export function useMayWrite(): boolean {
  const role = useRole();
  return role !== undefined && roleCan(role, "write");
}

/** What a role that may only read sees instead of a form. */
export function MayNotWrite({ title, what }: { title: string; what: string }) {
  const role = useRole();
  return (
    <Page title={title}>
      <p role="alert">
        You may not {what}: {role ? `your role in this workspace is ${role}, which may only read.` : "you belong to no workspace."}
      </p>
      <p>
        <Link to="/monitors">Back to the monitors</Link>
      </p>
    </Page>
  );
}
