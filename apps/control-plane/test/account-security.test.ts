import { createLogger } from "@vigil/logging";
import { Code } from "@connectrpc/connect";
import { ACCOUNTS } from "@vigil/domain";
import { BACKENDS, jsonOf, startTestApi, type Replica, type TestApi, type WorkspaceKeys } from "./support/api";
import { codeOf, rejection } from "./support/codes";
import { eventually } from "../../../test/eventually";
import { firstLinkOf, startMailbox } from "./support/page-access";
import { accountClient, createPerson, enrolSecondFactor, sessionCookie, totpCodeAt as codeAt } from "./support/people";

const PUBLIC_URL = "https://vigil.example.com";
const STEP_MS = ACCOUNTS.totpPeriodSeconds * 1000;

/** A code that is none of the codes `secret` has in the steps around now. */
const wrongCodeOf = (secret: string) => {
  const now = Date.now();
  const valid = new Set([-2, -1, 0, 1, 2].map((step) => codeAt(secret, now + step * STEP_MS)));
  return ["000000", "111111", "222222", "333333", "444444", "555555"].find((code) => !valid.has(code))!;
};

describe.each(BACKENDS)("second factor, mailed links and the audit of sign-ins on %s", (backend) => {
  let api: TestApi;
  let replica: Replica;
  let ws: WorkspaceKeys;
  let other: WorkspaceKeys;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let resetRequests = 0;
  /** What the server logged, JSON lines. */
  const logged: string[] = [];

  beforeAll(async () => {
    mailbox = await startMailbox();
    // The service's own logger (its redaction included), writing here.
    const logger = createLogger("info", "test", { write: (line) => void logged.push(line) });
    api = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url, PUBLIC_URL }, logger });
    replica = await api.startReplica();
    ws = await api.workspace();
    other = await api.workspace();
  });
  afterAll(async () => {
    await replica?.close();
    await api?.close();
    await mailbox?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    api.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const signIn = (body: { email: string; password: string; totp?: string }) => post("/v1/auth/sign-in", body);
  const askReset = (email: string) => {
    resetRequests++;
    return post("/v1/auth/password-reset", { email });
  };
  const workspaceIds = async () => (await api.db.prisma.workspace.findMany({ where: { slug: { in: [ws.slug, other.slug] } } })).map((w) => w.id).sort();

  /** A person in both workspaces with the second factor enabled: their secret and recovery codes. */
  async function enrolled() {
    const person = await createPerson(api, { [ws.slug]: "editor", [other.slug]: "viewer" });
    const cookie = await sessionCookie(api.baseUrl, person.email, person.password);
    return { ...person, cookie, c: accountClient(api.baseUrl, cookie), ...(await enrolSecondFactor(api.baseUrl, cookie)) };
  }

  describe("second factor", () => {
    it("enrols with a pending secret sealed at rest, refuses a malformed or wrong code naming code, and answers 10 recovery codes once enabled", async () => {
      const person = await createPerson(api, { [ws.slug]: "editor", [other.slug]: "viewer" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      expect((await c.getProfile({})).profile).toMatchObject({ totpEnabled: false });
      const { secret, otpauthUrl } = await c.beginTotpEnrolment({});
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const url = new URL(otpauthUrl);
      expect([url.protocol, url.host, decodeURIComponent(url.pathname)]).toEqual(["otpauth:", "totp", `/Vigil:${person.email}`]);
      expect(url.searchParams.get("issuer")).toBe("Vigil");
      expect(url.searchParams.get("secret")).toBe(secret);
      const pending = await api.db.prisma.user.findUniqueOrThrow({ where: { id: person.id } });
      expect(pending.totpPendingSecret).toMatch(/^v1:/);
      expect(JSON.stringify(pending)).not.toContain(secret);
      expect(pending.totpSecret).toBeNull();

      const malformed = await rejection(c.confirmTotpEnrolment({ code: "12345" }));
      expect([malformed.code, malformed.rawMessage]).toEqual([Code.InvalidArgument, `code: must be the ${ACCOUNTS.totpDigits}-digit code of your authenticator app`]);
      const wrong = await rejection(c.confirmTotpEnrolment({ code: wrongCodeOf(secret) }));
      expect(wrong.code).toBe(Code.InvalidArgument);
      expect(wrong.rawMessage).toMatch(/^code: /);
      expect((await c.getProfile({})).profile?.totpEnabled).toBe(false);

      const { recoveryCodes } = await c.confirmTotpEnrolment({ code: codeAt(secret, Date.now()) });
      expect(recoveryCodes).toHaveLength(ACCOUNTS.recoveryCodes);
      expect(new Set(recoveryCodes).size).toBe(ACCOUNTS.recoveryCodes);
      expect((await c.getProfile({})).profile?.totpEnabled).toBe(true);
      const stored = await api.db.prisma.user.findUniqueOrThrow({ where: { id: person.id }, include: { recoveryCodes: true } });
      expect(stored.totpSecret).toMatch(/^v1:/);
      expect(stored.totpPendingSecret).toBeNull();
      expect(stored.recoveryCodes).toHaveLength(ACCOUNTS.recoveryCodes);
      const kept = JSON.stringify(stored);
      for (const code of recoveryCodes) expect(kept).not.toContain(code);
      expect(await codeOf(c.beginTotpEnrolment({}))).toBe(Code.FailedPrecondition);

      const entries = await api.db.prisma.auditEntry.findMany({ where: { userId: person.id, method: "account.v1.AccountService/ConfirmTotpEnrolment" } });
      expect(entries.map((e) => e.workspaceId).sort()).toEqual(await workspaceIds());
      expect(entries.map((e) => e.changes)).toEqual([{ totpEnabled: true }, { totpEnabled: true }]);
      expect(JSON.stringify(entries)).not.toContain(secret);
    });

    it("asks for the second factor at sign-in: totp_required without it, like a wrong password for a wrong or replayed code, a recovery code once", async () => {
      const person = await enrolled();
      const wrongPassword = await signIn({ email: person.email, password: "not the password at all" });
      const wrongPasswordBody = await jsonOf(wrongPassword);

      const missing = await signIn({ email: person.email, password: person.password });
      expect(missing.status).toBe(401);
      expect(await jsonOf(missing)).toEqual({ code: "totp_required", message: expect.stringMatching(/second factor/) });
      expect(missing.headers.get("set-cookie")).toBeNull();

      const wrong = await signIn({ email: person.email, password: person.password, totp: wrongCodeOf(person.secret) });
      expect([wrong.status, await jsonOf(wrong)]).toEqual([401, wrongPasswordBody]);
      // The right code with a wrong password is a wrong password.
      const next = codeAt(person.secret, Date.now() + STEP_MS);
      expect((await signIn({ email: person.email, password: "not the password at all", totp: next })).status).toBe(401);

      const ok = await signIn({ email: person.email, password: person.password, totp: next });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("set-cookie")).toMatch(/^vigil_session=/);
      // A code seen over a shoulder is refused in its step.
      const replayed = await signIn({ email: person.email, password: person.password, totp: next });
      expect([replayed.status, await jsonOf(replayed)]).toEqual([401, wrongPasswordBody]);

      const recovery = person.recoveryCodes[0]!;
      expect((await signIn({ email: person.email, password: person.password, totp: recovery.toUpperCase() })).status).toBe(200);
      expect((await signIn({ email: person.email, password: person.password, totp: recovery })).status).toBe(401);
    });

    it("counts wrong codes with the account's sign-in attempts, then refuses both", async () => {
      const person = await enrolled();
      const wrong = wrongCodeOf(person.secret);
      for (let i = 0; i < ACCOUNTS.signInAttemptsPerAccount; i++) {
        const refused = await rejection(person.c.regenerateRecoveryCodes({ code: wrong }));
        expect([refused.code, refused.rawMessage.split(":")[0]]).toEqual([Code.InvalidArgument, "code"]);
      }
      expect(await codeOf(person.c.regenerateRecoveryCodes({ code: codeAt(person.secret, Date.now() + STEP_MS) }))).toBe(Code.ResourceExhausted);
      expect((await signIn({ email: person.email, password: person.password, totp: codeAt(person.secret, Date.now() + STEP_MS) })).status).toBe(429);
    });

    it("regenerates the recovery codes with a current code, and disables the second factor only with the password", async () => {
      const person = await enrolled();
      const { recoveryCodes } = await person.c.regenerateRecoveryCodes({ code: codeAt(person.secret, Date.now() + STEP_MS) });
      expect(recoveryCodes).toHaveLength(ACCOUNTS.recoveryCodes);
      expect(recoveryCodes.some((code) => person.recoveryCodes.includes(code))).toBe(false);
      expect((await signIn({ email: person.email, password: person.password, totp: person.recoveryCodes[0]! })).status).toBe(401);

      const wrong = await rejection(person.c.disableTotp({ password: "not the password at all" }));
      expect([wrong.code, wrong.rawMessage]).toEqual([Code.InvalidArgument, "password: is not your current password"]);
      expect((await person.c.getProfile({})).profile?.totpEnabled).toBe(true);
      await person.c.disableTotp({ password: person.password });
      expect((await person.c.getProfile({})).profile?.totpEnabled).toBe(false);
      expect(await api.db.prisma.recoveryCode.count({ where: { userId: person.id } })).toBe(0);
      expect((await signIn({ email: person.email, password: person.password })).status).toBe(200);

      const entries = await api.db.prisma.auditEntry.findMany({ where: { userId: person.id, method: "account.v1.AccountService/DisableTotp" } });
      expect(entries.map((e) => e.workspaceId).sort()).toEqual(await workspaceIds());
      expect(entries.map((e) => e.changes)).toEqual([{ totpEnabled: false }, { totpEnabled: false }]);
      expect(JSON.stringify(entries)).not.toContain(person.password);
    });

    it("asks an existing account's second factor when it accepts an invitation, which signs it in", async () => {
      const person = await enrolled();
      const fresh = await api.workspace();
      const { token } = await api.admin.inviteUser({ workspaceSlug: fresh.slug, email: person.email, role: "viewer" });
      const accept = (totp?: string) => post("/account.v1.MemberService/AcceptInvitation", { token, password: person.password, ...(totp && { totp }) });
      const missing = await accept();
      expect(missing.status).toBe(400);
      expect((await jsonOf(missing)).message).toMatch(/^totp: /);
      expect((await accept(wrongCodeOf(person.secret))).status).toBe(400);
      expect(await api.db.prisma.membership.count({ where: { userId: person.id } })).toBe(2);
      const accepted = await accept(codeAt(person.secret, Date.now() + STEP_MS));
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get("set-cookie")).toMatch(/^vigil_session=/);
    });
  });

  describe("email verification", () => {
    it("mails the first owner a verification link, which verifies the address once", async () => {
      const fresh = await api.workspace();
      const { token } = await api.admin.inviteUser({ workspaceSlug: fresh.slug, email: "", role: "owner" }, 24);
      const accepted = await post("/account.v1.MemberService/AcceptInvitation", { token, name: "First Owner", password: "a fine first passphrase", email: "first-owner@example.com" });
      expect(accepted.status).toBe(200);
      const cookie = accepted.headers.get("set-cookie")!.split(";")[0]!;
      const c = accountClient(api.baseUrl, cookie);
      expect((await c.getProfile({})).profile?.emailVerified).toBe(false);

      const link = new URL(firstLinkOf(await eventually(() => mailbox.mailTo("first-owner@example.com"))));
      expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/app/verify-email`);
      const crossSite = await post("/v1/auth/verify-email", { token: link.searchParams.get("token") }, { origin: "https://evil.example" });
      expect(crossSite.status).toBe(403);
      expect((await c.getProfile({})).profile?.emailVerified).toBe(false);

      const verified = await post("/v1/auth/verify-email", { token: link.searchParams.get("token") });
      expect([verified.status, await jsonOf(verified)]).toEqual([200, { verified: true }]);
      expect((await c.getProfile({})).profile?.emailVerified).toBe(true);
      const again = await post("/v1/auth/verify-email", { token: link.searchParams.get("token") });
      expect(again.status).toBe(400);
      expect((await jsonOf(again)).message).toMatch(/^token: /);
      expect(await codeOf(c.sendVerificationEmail({}))).toBe(Code.FailedPrecondition);
    });

    it("marks the address of an invitation that named it verified, and mails no link", async () => {
      const email = "invited-verified@example.com";
      const { token } = await api.admin.inviteUser({ workspaceSlug: ws.slug, email, role: "viewer" });
      const accepted = await post("/account.v1.MemberService/AcceptInvitation", { token, name: "Invited", password: "a fine first passphrase" });
      const c = accountClient(api.baseUrl, accepted.headers.get("set-cookie")!.split(";")[0]!);
      expect((await c.getProfile({})).profile?.emailVerified).toBe(true);
      expect(mailbox.mailsTo(email)).toEqual([]);
    });

    it("mails a new link on request, up to the mails per address per hour", async () => {
      const person = await createPerson(api, { [ws.slug]: "viewer" });
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
      for (let i = 0; i < ACCOUNTS.mailsPerAddressPerHour; i++) await c.sendVerificationEmail({});
      expect(await codeOf(c.sendVerificationEmail({}))).toBe(Code.ResourceExhausted);
      const mails = await eventually(() => {
        const found = mailbox.mailsTo(person.email);
        if (found.length < ACCOUNTS.mailsPerAddressPerHour) throw new Error(`${found.length} mails`);
        return found;
      });
      expect(mails).toHaveLength(ACCOUNTS.mailsPerAddressPerHour);
      const token = new URL(firstLinkOf(mails[0]!)).searchParams.get("token");
      expect((await post("/v1/auth/verify-email", { token })).status).toBe(200);
      expect((await c.getProfile({})).profile?.emailVerified).toBe(true);
    });
  });

  describe("logs", () => {
    it("log sign-ins, second-factor changes and resets without a password, code, token, secret or session id", async () => {
      const person = await enrolled();
      const wrongCode = wrongCodeOf(person.secret);
      const code = codeAt(person.secret, Date.now() + STEP_MS);
      await signIn({ email: person.email, password: "a wrong password typed" });
      await signIn({ email: person.email, password: person.password, totp: wrongCode });
      const ok = await signIn({ email: person.email, password: person.password, totp: code });
      await signIn({ email: person.email, password: person.password, totp: person.recoveryCodes[1]! });
      await askReset(person.email);
      const token = new URL(firstLinkOf(await eventually(() => mailbox.mailTo(person.email)))).searchParams.get("token")!;
      const newPassword = "a logged-out passphrase";
      expect((await post("/v1/auth/password-reset/confirm", { token, newPassword })).status).toBe(200);

      const lines = logged.join("");
      expect(lines).toContain("sign-in refused: wrong second factor");
      expect(lines).toContain("password reset; every session ended");
      const session = ok.headers.get("set-cookie")!.split(";")[0]!.split("=")[1]!;
      const secrets = [person.password, "a wrong password typed", person.secret, ...person.recoveryCodes, token, newPassword, session, person.cookie.split("=")[1]!];
      for (const secret of secrets) expect([secret, lines.includes(secret)]).toEqual([secret, false]);
      // Six digits stand in timestamps too: a code is looked for on its own.
      for (const digits of [wrongCode, code]) expect([digits, new RegExp(`(?<![0-9])${digits}(?![0-9])`).test(lines)]).toEqual([digits, false]);
    });
  });

  describe("password reset", () => {
    it("answers an unknown and a known address alike, mails only the known one, and the link sets the password once, ending every session everywhere", async () => {
      const person = await createPerson(api, { [ws.slug]: "editor", [other.slug]: "viewer" });
      const here = await sessionCookie(api.baseUrl, person.email, person.password);
      const there = await sessionCookie(replica.baseUrl, person.email, person.password);

      const unknown = await askReset("nobody-here@example.com");
      const known = await askReset(person.email.toUpperCase());
      expect([known.status, await jsonOf(known)]).toEqual([unknown.status, await jsonOf(unknown)]);
      expect(known.status).toBe(202);
      const link = new URL(firstLinkOf(await eventually(() => mailbox.mailTo(person.email))));
      expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/app/reset-password`);
      expect(mailbox.mailsTo("nobody-here@example.com")).toEqual([]);
      const token = link.searchParams.get("token")!;
      expect(Buffer.from(token, "base64url").length * 8).toBeGreaterThanOrEqual(128);

      const weak = await post("/v1/auth/password-reset/confirm", { token, newPassword: "short" });
      expect(weak.status).toBe(400);
      expect((await jsonOf(weak)).message).toMatch(/^newPassword: /);
      const crossSite = await post("/v1/auth/password-reset/confirm", { token, newPassword: "a brand new passphrase" }, { origin: "https://evil.example" });
      expect(crossSite.status).toBe(403);
      expect(await codeOf(accountClient(replica.baseUrl, there).getProfile({}))).toBe("ok");

      const newPassword = "a brand new passphrase";
      const reset = await post("/v1/auth/password-reset/confirm", { token, newPassword });
      expect([reset.status, await jsonOf(reset)]).toEqual([200, { reset: true }]);
      expect(reset.headers.get("set-cookie")).toBeNull();
      expect(await codeOf(accountClient(api.baseUrl, here).getProfile({}))).toBe(Code.Unauthenticated);
      expect(await codeOf(accountClient(replica.baseUrl, there).getProfile({}))).toBe(Code.Unauthenticated);
      expect((await signIn({ email: person.email, password: person.password })).status).toBe(401);
      const c = accountClient(api.baseUrl, await sessionCookie(api.baseUrl, person.email, newPassword));
      expect((await c.getProfile({})).profile?.emailVerified).toBe(true);

      const reused = await post("/v1/auth/password-reset/confirm", { token, newPassword: "yet another passphrase" });
      expect(reused.status).toBe(400);
      expect((await jsonOf(reused)).message).toMatch(/^token: /);

      const entries = await api.db.prisma.auditEntry.findMany({ where: { userId: person.id, method: "POST /v1/auth/password-reset/confirm" } });
      expect(entries.map((e) => e.workspaceId).sort()).toEqual(await workspaceIds());
      const recorded = JSON.stringify(entries);
      for (const secret of [token, newPassword, person.password]) expect(recorded).not.toContain(secret);
    });

    it("refuses cross-site requests, and limits requests per client address", async () => {
      const person = await createPerson(api, { [ws.slug]: "viewer" });
      // Refused before it is counted, like a malformed address.
      expect((await post("/v1/auth/password-reset", { email: person.email }, { origin: "https://evil.example" })).status).toBe(403);
      expect((await post("/v1/auth/password-reset", { email: "not an email" })).status).toBe(400);
      while (resetRequests < ACCOUNTS.passwordResetsPerAddressPerHour) expect((await askReset(`someone-${resetRequests}@example.com`)).status).toBe(202);
      const refused = await askReset(person.email);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    });
  });

  describe("audit of sign-ins", () => {
    it("records sign-ins and failed sign-ins of known accounts in each of the person's workspaces, without secrets; unknown emails nowhere", async () => {
      const person = await enrolled();
      expect((await signIn({ email: "unknown-person@example.com", password: "whatever it is here" })).status).toBe(401);

      const wrongCode = wrongCodeOf(person.secret);
      await signIn({ email: person.email, password: "a wrong password typed" });
      await signIn({ email: person.email, password: person.password, totp: wrongCode });
      const ok = await signIn({ email: person.email, password: person.password, totp: codeAt(person.secret, Date.now() + STEP_MS) });
      expect(ok.status).toBe(200);

      const ids = await workspaceIds();
      // Failures are written after the answer.
      const entries = await eventually(async () => {
        const found = await api.db.prisma.auditEntry.findMany({ where: { userId: person.id, method: "POST /v1/auth/sign-in" }, orderBy: { id: "asc" } });
        if (found.length < 4 * ids.length) throw new Error(`${found.length} entries`);
        return found;
      });
      const inEach = (changes: object) => ids.map((workspaceId) => ({ workspaceId, actorType: "user", userEmail: person.email, targetKind: "User", targetId: person.id, changes }));
      const shown = entries.map(({ workspaceId, actorType, userEmail, targetKind, targetId, changes }) => ({ workspaceId, actorType, userEmail, targetKind, targetId, changes }));
      const keyOf = (row: { workspaceId: string; changes: unknown }) => `${row.workspaceId} ${JSON.stringify(Object.entries(row.changes as object).sort())}`;
      const sorted = <T extends { workspaceId: string; changes: unknown }>(rows: T[]) => [...rows].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      // The sign-in that made the session of `enrolled` was before the second factor: a success too.
      expect(sorted(shown)).toEqual(
        sorted([
          ...inEach({ succeeded: true, address: "127.0.0.1" }),
          ...inEach({ succeeded: false, reason: "wrong password", address: "127.0.0.1" }),
          ...inEach({ succeeded: false, reason: "wrong second factor", address: "127.0.0.1" }),
          ...inEach({ succeeded: true, address: "127.0.0.1" }),
        ]),
      );
      // The unknown email's refusal came first; by the time the person's last entries are written it would be too.
      expect(JSON.stringify(await api.db.prisma.auditEntry.findMany())).not.toContain("unknown-person@example.com");
      const recorded = JSON.stringify(entries);
      for (const secret of [person.password, "a wrong password typed", wrongCode, person.secret, ok.headers.get("set-cookie")!.split(";")[0]!.split("=")[1]!]) {
        expect(recorded).not.toContain(secret);
      }
    });
  });
});
