import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { InvitationRow, MembershipRow, PrismaClient, UserRow } from "@vigil/db";
import { ACCOUNTS, ValidationError, emailField, mayAssignRole, parseId, parseOrThrow, roleField, scopesOfRole, type Role } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import type { ProviderSettings } from "@vigil/notifications";
import { InvitationSchema, MemberSchema, type MemberService } from "@vigil/proto/account";
import type { Actor } from "../auth/actor";
import { actorKey, requirePermission } from "../auth/context";
import { notFound } from "../errors";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import { clientAddressOf } from "../limits/rpc-gate";
import { sendInvitationMail } from "./invitation-mail";
import { inviteUrl, type Invitations } from "./invitations";
import type { UserSessions } from "./sessions";
import { mailVerificationQuietly, type AccountLinks } from "./account-links";

export interface MemberServiceDeps {
  prisma: PrismaClient;
  invitations: Invitations;
  sessions: UserSessions;
  /** PUBLIC_URL and the SMTP settings the invitations are mailed with. */
  settings: ProviderSettings;
  /** Mails per recipient address and hour (mailsByAddress), shared with the account's links. */
  mailsByAddress: AttemptLimiter;
  /** Verification links, mailed to a person whose invitation named no address. */
  links: AccountLinks;
  logger: Logger;
}

const memberMessage = (m: MembershipRow & { user: UserRow }) =>
  create(MemberSchema, { id: m.userId, email: m.user.email, name: m.user.name, role: m.role, joinedAt: timestampFromDate(m.createdAt) });

const invitationMessage = (i: InvitationRow) =>
  create(InvitationSchema, {
    id: i.id,
    email: i.email ?? "",
    role: i.role,
    invitedBy: i.invitedById ?? "",
    createdAt: timestampFromDate(i.createdAt),
    expiresAt: timestampFromDate(i.expiresAt),
  });

const KEEP_AN_OWNER = "a workspace always keeps an owner: make another member owner first";

/** Whether the caller may give or take `role` (only owners make or unmake owners). */
function checkAssign(actor: Actor, role: Role): void {
  if (actor.type === "user" && !mayAssignRole(actor.role, role)) {
    throw new ConnectError(`only owners make or unmake owners (you are ${actor.role})`, Code.PermissionDenied);
  }
}

/** MemberService (proto/account/v1/member.proto): the people of the caller's workspace. */
export function memberService(deps: MemberServiceDeps): ServiceImpl<typeof MemberService> {
  const { prisma, invitations, sessions, settings, logger } = deps;

  const membershipOf = async (workspaceId: string, id: string) => {
    const member = await prisma.membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId: parseId(id, "id") } }, include: { user: true } });
    if (!member) throw notFound(`member ${id}`);
    return member;
  };

  /** Runs a change of memberships, undone when it would leave the workspace without an owner. */
  const keepingAnOwner = (workspaceId: string, change: (tx: PrismaClient) => Promise<unknown>) =>
    prisma.$transaction(async (tx) => {
      await change(tx as PrismaClient);
      const owners = await tx.membership.count({ where: { workspaceId, role: "owner" } });
      if (owners === 0) throw new ConnectError(KEEP_AN_OWNER, Code.FailedPrecondition);
    });

  return {
    async listMembers(_req, ctx) {
      const { workspace } = requirePermission(ctx, "read");
      const members = await prisma.membership.findMany({ where: { workspaceId: workspace.id }, include: { user: true }, orderBy: { createdAt: "asc" } });
      return { members: members.map(memberMessage) };
    },

    async inviteMember(req, ctx) {
      const actor = requirePermission(ctx, "members");
      const email = parseOrThrow(emailField(), req.email, "email");
      const role = parseOrThrow(roleField(), req.role, "role");
      checkAssign(actor, role);
      if (!settings.smtpUrl) {
        throw new ConnectError("invitations are mailed and SMTP_URL is not set; `vigil-admin user invite` prints a link instead", Code.FailedPrecondition);
      }
      const member = await prisma.membership.findFirst({ where: { workspaceId: actor.workspace.id, user: { email } } });
      if (member) throw ValidationError.of("email", `${email} is already a member of this workspace`);
      const wait = await deps.mailsByAddress.reserve(email);
      if (wait > 0) {
        throw new ConnectError(`too many invitations mailed to ${email} this hour; try again in ${wait} seconds`, Code.ResourceExhausted, { "retry-after": String(wait) });
      }
      const invitedById = actor.type === "user" ? actor.userId : null;
      const { invitation, token } = await invitations.create({ workspaceId: actor.workspace.id, email, role, invitedById, validHours: ACCOUNTS.invitationDays * 24 });
      try {
        await sendInvitationMail(settings, { to: email, workspace: actor.workspace.name, role, link: inviteUrl(settings.publicUrl, token) });
      } catch (error) {
        await invitations.revoke(actor.workspace.id, invitation.id);
        logger.warn({ err: error, invitationId: invitation.id }, "invitation mail not sent");
        throw new ConnectError("the invitation mail could not be sent; nothing was created", Code.Unavailable);
      }
      return { invitation: invitationMessage(invitation) };
    },

    async listInvitations(_req, ctx) {
      const { workspace } = requirePermission(ctx, "members");
      return { invitations: (await invitations.pending(workspace.id)).map(invitationMessage) };
    },

    async revokeInvitation(req, ctx) {
      const { workspace } = requirePermission(ctx, "members");
      if (!(await invitations.revoke(workspace.id, parseId(req.id, "id")))) throw notFound(`pending invitation ${req.id}`);
      return {};
    },

    async acceptInvitation(req, ctx) {
      const member = await invitations.accept(req);
      const { user, workspace } = member;
      // An existing person's other sessions gain the workspace.
      await sessions.forgetPerson(user.id);
      const role = member.role as Role;
      if (!user.emailVerifiedAt) await mailVerificationQuietly(deps.links, user, deps.logger);
      const session = await sessions.open(user.id, { userAgent: ctx.requestHeader.get("user-agent") ?? "", address: clientAddressOf(ctx) });
      ctx.responseHeader.append("set-cookie", sessions.cookie(session.token, session.expiresAt, settings.publicUrl.startsWith("https:")));
      // The person is who acted, for the audit log.
      const { id, name, slug, plan } = workspace;
      ctx.values.set(actorKey, { type: "user", userId: user.id, email: user.email, role, sessionId: session.sessionId, scopes: scopesOfRole(role), workspace: { id, name, slug, plan } });
      return { member: memberMessage(member), workspaceSlug: slug };
    },

    async updateMemberRole(req, ctx) {
      const actor = requirePermission(ctx, "members");
      const role = parseOrThrow(roleField(), req.role, "role");
      const member = await membershipOf(actor.workspace.id, req.id);
      checkAssign(actor, role);
      checkAssign(actor, member.role as Role);
      await keepingAnOwner(actor.workspace.id, (tx) => tx.membership.update({ where: { workspaceId_userId: { workspaceId: actor.workspace.id, userId: member.userId } }, data: { role } }));
      await sessions.forgetPerson(member.userId);
      return { member: memberMessage({ ...member, role }) };
    },

    async removeMember(req, ctx) {
      const actor = requirePermission(ctx, "members");
      const member = await membershipOf(actor.workspace.id, req.id);
      checkAssign(actor, member.role as Role);
      await keepingAnOwner(actor.workspace.id, (tx) => tx.membership.delete({ where: { workspaceId_userId: { workspaceId: actor.workspace.id, userId: member.userId } } }));
      await sessions.forgetPerson(member.userId);
      return {};
    },
  };
}
