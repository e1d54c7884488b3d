import type { Page } from "playwright-core";
import { ACCOUNTS, SESSION_COOKIE } from "@vigil/domain";
import { AccountService, MemberService, SsoService } from "@vigil/proto/account";
import { consoleTestEnvironment, expectAccessible, heading, shows, screenshotBoth } from "./support/console";
import { eventually } from "../../../test/eventually";
import { firstLinkOf } from "./support/page-access";
import { accountClient, createPerson, sessionClient, sessionCookie, signedInPerson, totpCodeAt, type Person } from "./support/people";

/**
 * The console's Settings (apps/console/src/pages/settings) in headless
 * Chromium at a phone's width, against a real control plane: what a person
 * does there is what the public RPCs then answer, the controls a role may not
 * use are not shown, and every page passes axe-core.
 */
const env = consoleTestEnvironment("https://vigil.example.com");
const { signedInAt } = env;

const members = (slug: string, person: Person) => sessionClient(MemberService, env.api.baseUrl, person.token, { workspace: slug });

/** Accepts the next confirmation the page asks for. */
const confirming = (page: Page) => page.once("dialog", (dialog) => void dialog.accept());

describe("the console's Settings", () => {
  it("reaches the pages of the header with the keyboard alone", async () => {
    const { page } = await signedInAt("admin", "Members");
    await page.goto(`${env.api.baseUrl}/app/`);
    await shows(heading(page), "Monitors");
    for (const link of ["Members", "API keys", "Your account"]) {
      await page.evaluate("document.activeElement.blur()");
      let presses = 0;
      while ((await page.evaluate<string | null>("document.activeElement.textContent")) !== link) {
        expect(++presses).toBeLessThan(10);
        await page.keyboard.press("Tab");
      }
      await page.keyboard.press("Enter");
      await shows(heading(page), link);
    }
  });

  it("lets an owner invite (the mail arrives), revoke an invitation, change a member's role and remove a member", async () => {
    const { slug, person: owner, page } = await signedInAt("owner", "Members");
    const other = await createPerson(env.api, { [slug]: "viewer" });
    await page.reload();
    await shows(page.getByRole("cell", { name: other.email, exact: true }));
    await expectAccessible(page, "members");
    await screenshotBoth(page, "settings-members");

    // The API's rule, beside the field.
    await page.getByLabel("Email", { exact: true }).fill("not-an-address");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await shows(page.getByText("Email: must be an email address"));

    const invited = `invited-${slug}@console.test`;
    await page.getByLabel("Email", { exact: true }).fill(invited);
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    await page.getByRole("button", { name: "Send invitation" }).click();
    expect(firstLinkOf(await eventually(() => env.mailbox.mailTo(invited)))).toContain("/app/invite?token=");
    await shows(page.getByRole("cell", { name: invited }));
    expect((await members(slug, owner).listInvitations({})).invitations.map((i) => [i.email, i.role])).toEqual([[invited, "editor"]]);
    await expectAccessible(page, "members with an invitation");
    confirming(page);
    await page.getByRole("button", { name: `Revoke ${invited}` }).click();
    await eventually(async () => expect((await members(slug, owner).listInvitations({})).invitations).toEqual([]));

    await page.getByLabel(`Role of ${other.email}`).selectOption("admin");
    await page.getByRole("button", { name: `Change role of ${other.email}` }).click();
    await eventually(async () => expect((await members(slug, owner).listMembers({})).members.find((m) => m.email === other.email)?.role).toBe("admin"));

    confirming(page);
    await page.getByRole("button", { name: `Remove ${other.email}` }).click();
    await page.getByRole("cell", { name: other.email, exact: true }).waitFor({ state: "detached" });
    expect((await members(slug, owner).listMembers({})).members.map((m) => m.email)).toEqual([owner.email]);
  });

  it("shows a viewer the members without a control, and no API keys or SSO link", async () => {
    const { person, page } = await signedInAt("viewer", "Members");
    await shows(page.getByRole("cell", { name: person.email }));
    expect(await page.getByRole("main").getByRole("button").allTextContents()).toEqual([]);
    expect(await page.getByRole("combobox").count()).toBe(1); // the workspace switcher only
    // The header has the pages every role reads; none of the settings a viewer may not use.
    const links = await page.getByRole("navigation").getByRole("link").allTextContents();
    expect(links).toEqual(expect.arrayContaining(["Members", "Your account"]));
    for (const link of ["API keys", "Single sign-on", "Audit log"]) expect(links).not.toContain(link);
    await expectAccessible(page, "members, viewer");
  });

  it("shows the API's refusal when a control is used after the role that allowed it was taken away", async () => {
    const { slug, person: admin, page } = await signedInAt("admin", "Members");
    const other = await createPerson(env.api, { [slug]: "viewer" });
    await page.reload();
    await shows(page.getByRole("cell", { name: other.email, exact: true }));
    const owner = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "owner");
    await members(slug, owner).updateMemberRole({ id: admin.userId, role: "viewer" });
    confirming(page);
    await page.getByRole("button", { name: `Remove ${other.email}` }).click();
    await shows(page.getByRole("alert"), "(you are viewer in ");
    expect((await members(slug, owner).listMembers({})).members.map((m) => m.email)).toContain(other.email);
  });

  it("creates an API key shown once that works with the API, and revokes it after confirmation", async () => {
    const { page } = await signedInAt("admin", "API keys");
    await expectAccessible(page, "API keys");
    await page.getByLabel("Name").fill("deploys");
    await page.getByLabel("Expires (optional)").fill("2001-01-01");
    await page.getByRole("button", { name: "Create key" }).click();
    await shows(page.getByText("Expires (optional): must be in the future"));

    await page.getByLabel("Expires (optional)").fill("");
    await page.getByLabel("Scope").selectOption("write");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent())!;
    const whoami = () => env.api.fetch("/v1/whoami", { headers: { "x-service-key": key } });
    expect((await whoami()).status).toBe(200);
    await shows(page.getByRole("cell", { name: "deploys" }));
    await expectAccessible(page, "API keys with a new key");
    await screenshotBoth(page, "settings-api-keys");

    confirming(page);
    await page.getByRole("button", { name: "Revoke deploys" }).click();
    await shows(page.getByRole("cell", { name: /^revoked / }));
    expect((await whoami()).status).toBe(401);
  });

  it("sets an owner's SSO settings, the secret write-only and the API's field error beside its field", async () => {
    const { slug, person: owner, page } = await signedInAt("owner", "Single sign-on");
    await shows(page.getByTestId("redirect-uri"), "/v1/auth/oidc/callback");
    await expectAccessible(page, "SSO");
    await screenshotBoth(page, "settings-sso");

    await page.getByLabel("Issuer URL").fill("http://idp.example.com");
    await page.getByLabel("Client ID").fill("vigil");
    await page.getByLabel("Client secret").fill("s3cret-of-the-client");
    await page.getByRole("button", { name: "Save settings" }).click();
    await shows(page.getByText("Issuer URL: must be an https:// URL"));

    await page.getByLabel("Issuer URL").fill("https://idp.example.com");
    await page.getByLabel("Allowed email domains").fill("example.com\nexample.org");
    await page.getByLabel("Default role").selectOption("editor");
    await page.getByLabel("Role claim").fill("groups");
    await page.getByLabel("Role mapping").fill("vigil-admins = admin");
    await page.getByLabel("Enabled").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await shows(page.getByRole("alert"), "Saved.");
    const { settings } = await sessionClient(SsoService, env.api.baseUrl, owner.token, { workspace: slug }).getSsoSettings({});
    expect(settings).toMatchObject({
      issuerUrl: "https://idp.example.com",
      clientId: "vigil",
      clientSecret: "",
      clientSecretSet: true,
      allowedDomains: ["example.com", "example.org"],
      defaultRole: "editor",
      roleClaim: "groups",
      roleMapping: { "vigil-admins": "admin" },
      enabled: true,
      enforced: false,
    });
    await page.reload();
    expect(await page.getByLabel("Client secret").inputValue()).toBe("");
    await shows(page.getByText("A secret is stored"));
  });

  it("changes the password, enrols a second factor with a code of otpauth and turns it off, and ends another session", async () => {
    const { person, page } = await signedInAt("editor", "Your account");
    const elsewhere = await sessionCookie(env.api.baseUrl, person.email, person.password, "another browser");
    await page.reload();
    await shows(page.getByRole("cell", { name: "another browser" }));
    await expectAccessible(page, "your account");
    await screenshotBoth(page, "settings-account");

    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await shows(page.getByText("Current password: "));
    await page.getByLabel("Current password").fill(person.password);
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await shows(page.getByRole("alert"), "Password changed");
    // The change ended the other session; one more, opened with the new password, is ended from the page below.
    const third = await sessionCookie(env.api.baseUrl, person.email, "a brand new passphrase", "a third browser");
    await eventually(async () => expect((await accountClient(env.api.baseUrl, elsewhere).getProfile({}).catch((e: Error) => e)) instanceof Error).toBe(true));

    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await shows(page.getByRole("img", { name: /QR code/ }));
    await expectAccessible(page, "second factor enrolment");
    const secret = (await page.getByTestId("totp-secret").textContent())!;
    await page.getByLabel("Code", { exact: true }).fill("12345");
    await page.getByRole("button", { name: "Turn on" }).click();
    await shows(page.getByText(`Code: must be the ${ACCOUNTS.totpDigits}-digit code`));
    await page.getByLabel("Code", { exact: true }).fill(totpCodeAt(secret, Date.now()));
    await page.getByRole("button", { name: "Turn on" }).click();
    await shows(page.getByTestId("recovery-codes"));
    expect(await page.getByTestId("recovery-codes").getByRole("listitem").count()).toBe(ACCOUNTS.recoveryCodes);
    await page.getByRole("button", { name: "I have kept them" }).click();
    await shows(page.getByRole("button", { name: "Turn off the second factor" }));

    await shows(page.getByRole("cell", { name: "a third browser" }));
    await page.getByRole("button", { name: /^End session from/ }).click();
    await eventually(async () => expect((await accountClient(env.api.baseUrl, third).getProfile({}).catch((e: Error) => e)) instanceof Error).toBe(true));
    const own = sessionClient(AccountService, env.api.baseUrl, (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!.value);
    expect((await own.getProfile({})).profile?.totpEnabled).toBe(true);

    await page.getByLabel("Password", { exact: true }).fill("a brand new passphrase");
    await page.getByRole("button", { name: "Turn off the second factor" }).click();
    await shows(page.getByRole("button", { name: "Set up an authenticator app" }));
    expect((await own.getProfile({})).profile?.totpEnabled).toBe(false);
  });
});
