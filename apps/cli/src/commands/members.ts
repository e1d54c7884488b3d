import { emailField, normalizeEmail, roleField, type Role } from "@vigil/domain";
import {
  InvitationSchema,
  InviteMemberResponseSchema,
  ListInvitationsResponseSchema,
  ListMembersResponseSchema,
  MemberSchema,
  UpdateMemberRoleResponseSchema,
  type Invitation,
  type Member,
} from "@vigil/proto/account";
import { Command, InvalidArgumentError, Option } from "commander";
import type { ZodType } from "zod";
import { action, type Context } from "../context.js";
import { CliError } from "../failures.js";
import { isoTime, jsonFlagOutput, messageDetails, table, type Output } from "../output.js";

/** Commander argument parsers: the domain's rules, checked before anything is sent, a usage error otherwise. */
function parserOf<T>(field: () => ZodType<T, unknown>) {
  return (text: string): T => {
    const parsed = field().safeParse(text);
    if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues.map((issue) => issue.message).join("; "));
    return parsed.data;
  };
}
const roleArgument = parserOf<Role>(roleField);
const emailArgument = parserOf<string>(emailField);

/** The member a user id or an email names (people know each other by email; the API by id). */
async function memberNamed(ctx: Context, idOrEmail: string): Promise<Member> {
  const { members } = await ctx.client.members.listMembers({});
  const email = normalizeEmail(idOrEmail);
  const member = members.find((m) => m.id === idOrEmail || m.email === email);
  if (!member) throw new CliError(`no member of the workspace has the user id or email ${idOrEmail}`);
  return member;
}

const membersTable = (out: Output, members: Member[]) =>
  table(
    out.colors,
    ["USER ID", "EMAIL", "NAME", "ROLE", "JOINED"],
    members.map((m) => [m.id, m.email, m.name, m.role, isoTime(m.joinedAt)]),
  );

const invitationsTable = (out: Output, invitations: Invitation[]) =>
  table(
    out.colors,
    ["ID", "EMAIL", "ROLE", "INVITED BY", "CREATED", "EXPIRES"],
    invitations.map((i) => [i.id, i.email, i.role, i.invitedBy, isoTime(i.createdAt), isoTime(i.expiresAt)]),
  );

export function membersCommand(): Command {
  const members = new Command("members").description("the people of the workspace (listing: any member or key; changes: signed in as an admin or owner, `vigil login --email`)");
  members
    .command("list")
    .description("the workspace's members and their roles")
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, options: { json?: boolean }) => {
        const listed = await ctx.client.members.listMembers({});
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(out.renderMessage(ListMembersResponseSchema, listed, () => membersTable(out, listed.members)));
      }),
    );
  members
    .command("invite")
    .description("invite an email with a role: a single-use link, valid 7 days, is mailed to it")
    .addOption(new Option("--email <email>", "whom to invite").argParser(emailArgument).makeOptionMandatory())
    .addOption(new Option("--role <role>", "owner, admin, editor or viewer").argParser(roleArgument).makeOptionMandatory())
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, options: { email: string; role: Role; json?: boolean }) => {
        const request = { email: options.email, role: options.role };
        const invited = await ctx.client.members.inviteMember(request);
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(
          out.renderMessage(InviteMemberResponseSchema, invited, () =>
            [messageDetails(out.colors, InvitationSchema, invited.invitation), "", `the invitation link is mailed to ${request.email}`].join("\n"),
          ),
        );
      }),
    );
  members
    .command("role")
    .description("change a member's role (only owners make or unmake owners)")
    .argument("<member>", "the member's user id or email")
    .argument("<role>", "owner, admin, editor or viewer", roleArgument)
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, who: string, role: Role, options: { json?: boolean }) => {
        const { id } = await memberNamed(ctx, who);
        const updated = await ctx.client.members.updateMemberRole({ id, role });
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(out.renderMessage(UpdateMemberRoleResponseSchema, updated, () => messageDetails(out.colors, MemberSchema, updated.member)));
      }),
    );
  members
    .command("remove")
    .description("remove a member from the workspace (their account and other workspaces stay)")
    .argument("<member>", "the member's user id or email")
    .action(
      action(async (ctx, who: string) => {
        const member = await memberNamed(ctx, who);
        await ctx.client.members.removeMember({ id: member.id });
        ctx.out.write(ctx.out.render({ removed: member.id }, () => `removed ${member.email} (${member.id}) from the workspace`));
      }),
    );
  members
    .command("invitations")
    .description("pending invitations: neither accepted, withdrawn nor expired")
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, options: { json?: boolean }) => {
        const listed = await ctx.client.members.listInvitations({});
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(out.renderMessage(ListInvitationsResponseSchema, listed, () => invitationsTable(out, listed.invitations)));
      }),
    );
  members
    .command("revoke-invitation")
    .description("withdraw a pending invitation: its link stops working")
    .argument("<id>", "invitation id")
    .action(
      action(async (ctx, id: string) => {
        await ctx.client.members.revokeInvitation({ id });
        ctx.out.write(ctx.out.render({ revoked: id }, () => `withdrew invitation ${id}`));
      }),
    );
  return members;
}
