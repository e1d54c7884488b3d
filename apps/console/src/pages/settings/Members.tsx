import { useQuery } from "@connectrpc/connect-query";
import { ACCOUNTS, ROLES, mayAssignRole, roleCan, type Role } from "@vigil/domain/accounts";
import { MemberService, type Member } from "@vigil/proto/account";
import { emailRule } from "../../fields";
import { useRole, useSignedIn } from "../../SignedIn";
import { Field, Form, FormMessage, Page, brokenRules, text, useForm } from "../../ui";
import { SelectField, Table, useAction, useClient, useSubmit, when } from "../../controls";

/** The workspace's people and invitations; the controls only for who may use them (`roleCan`, `mayAssignRole`). */
export default function Members() {
  const role = useRole();
  const members = useQuery(MemberService.method.listMembers, {}, { retry: false, enabled: !!role });
  const manages = !!role && roleCan(role, "members");
  const invitations = useQuery(MemberService.method.listInvitations, {}, { retry: false, enabled: manages });
  const action = useAction();
  const client = useClient(MemberService);
  const assignable = role ? ROLES.filter((r) => mayAssignRole(role, r)) : [];

  return (
    <Page title="Members" wide>
      {!role && <p>You belong to no workspace yet.</p>}
      {members.error && <FormMessage message={members.error.message} />}
      {action.message}
      {members.data && (
        <Table caption="Members" head={["Name", "Email", "Role", "Joined", ...(manages ? ["Actions"] : [])]}>
          {members.data.members.map((m) => (
            <tr key={m.id}>
              <td>{m.name}</td>
              <td>{m.email}</td>
              <td>{m.role}</td>
              <td>{when(m.joinedAt)}</td>
              {manages && (
                <td>
                  {role && mayAssignRole(role, m.role as Role) && (
                    <>
                      <RoleChange member={m} roles={assignable} />
                      <button type="button" className="secondary" onClick={() => void action.run(() => client.removeMember({ id: m.id }), `Remove ${m.email} from the workspace?`)}>
                        Remove {m.email}
                      </button>
                    </>
                  )}
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {manages && (
        <>
          <h2>Invite someone</h2>
          <Invite roles={assignable} />
          <h2>Pending invitations</h2>
          {invitations.error && <FormMessage message={invitations.error.message} />}
          {invitations.data?.invitations.length === 0 && <p>None.</p>}
          {!!invitations.data?.invitations.length && (
            <Table caption="Pending invitations" head={["Email", "Role", "Expires", "Actions"]}>
              {invitations.data.invitations.map((i) => (
                <tr key={i.id}>
                  <td>{i.email || "(anyone with the link)"}</td>
                  <td>{i.role}</td>
                  <td>{when(i.expiresAt)}</td>
                  <td>
                    <button type="button" className="secondary" onClick={() => void action.run(() => client.revokeInvitation({ id: i.id }), `Revoke the invitation of ${i.email || "anyone with the link"}?`)}>
                      Revoke {i.email || "invitation"}
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </Page>
  );
}

function RoleChange({ member, roles }: { member: Member; roles: readonly Role[] }) {
  const client = useClient(MemberService);
  const submit = useSubmit(["role"]);
  const form = useForm((data) => submit(() => client.updateMemberRole({ id: member.id, role: text(data, "role") })));
  return (
    <Form form={form} submit={`Change role of ${member.email}`}>
      <SelectField name="role" label={`Role of ${member.email}`} options={roles} defaultValue={member.role} error={form.errors.role} />
    </Form>
  );
}

function Invite({ roles }: { roles: readonly Role[] }) {
  const { workspace } = useSignedIn();
  const client = useClient(MemberService);
  const submit = useSubmit(["email", "role"]);
  const form = useForm(async (data) => {
    const email = text(data, "email");
    const refused = brokenRules({ email: emailRule(email) }) ?? (await submit(() => client.inviteMember({ email, role: text(data, "role") })));
    if (!refused) form.ref.current?.reset();
    return refused;
  });
  return (
    <Form form={form} submit="Send invitation">
      <Field name="email" label="Email" type="email" autoComplete="off" error={form.errors.email} />
      <SelectField name="role" label="Role" options={roles} defaultValue="viewer" error={form.errors.role} />
      <p className="hint">The invitation is mailed to them and works for {ACCOUNTS.invitationDays} days in {workspace?.name}.</p>
    </Form>
  );
}
