import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ACCOUNTS, WORKSPACE_HEADER } from "@vigil/domain";
import { MemberService } from "@vigil/proto/account";
import { inviteUrl } from "../src/accounts/invitations";
import { jsonOf, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { consoleTestEnvironment, expectAccessible, focused, heading, shows, signInWith, screenshotBoth } from "./support/console";
import { eventually } from "../../../test/eventually";
import { firstLinkOf, request } from "./support/page-access";
import { GOOD_PASSWORD, accountClient, createPerson, enrolSecondFactor, sessionClient, sessionCookie, signedInPerson, totpCodeAt } from "./support/people";

/**
 * The console's first pages (apps/console), built by `pnpm build` and served
 * by a real control plane at /app/, driven in headless Chromium at a phone's
 * width: every link the server prints or mails opens a page that works, and
 * every page passes axe-core without a serious or critical violation.
 */
const PUBLIC_URL = "https://vigil.example.com";

const env = consoleTestEnvironment(PUBLIC_URL);
const { open } = env;
let api: TestApi;
let ws: WorkspaceKeys;
let mailbox: typeof env.mailbox;

beforeAll(async () => {
  ({ api, mailbox } = env);
  ws = await api.workspace();
});

/** GET / with `host` in the Host header (fetch cannot set it). */
const rootAt = async (host: string) => {
  const res = await request(api.baseUrl, "/", { headers: { host } });
  return { status: res.status, location: res.headers.location };
};

/** The path under /app/ of the first script index.html names. */
const assetOf = (html: string) => /src="\/app\/(assets\/[^"]+\.js)"/.exec(html)![1]!;

/** A link as the server prints or mails it (on PUBLIC_URL), opened on the test server. */
const onTestServer = (link: string) => {
  const url = new URL(link);
  expect(url.origin).toBe(PUBLIC_URL);
  return `${api.baseUrl}${url.pathname}${url.search}`;
};

describe("the console's files at /app/", () => {
  it("redirects / on the service's own address to /app/, and leaves / of another host to the status pages", async () => {
    // The service's own name (PUBLIC_URL's host) as a browser may write it, and an IP address (the test server's own).
    for (const host of ["vigil.example.com", "VIGIL.example.com.", new URL(api.baseUrl).host, "[::1]:8080"]) {
      expect({ host, ...(await rootAt(host)) }).toEqual({ host, status: 302, location: "/app/" });
    }
    // Any other name may be a status page's custom domain: it is theirs (docs/status-pages.md), a 404 when it is no page's.
    expect(await rootAt("status.elsewhere.example")).toEqual({ status: 404, location: undefined });
  });

  it("answers index.html for every page, not cached, under a policy with no inline script; hashed assets are immutable", async () => {
    const pages = await Promise.all(["/app/", "/app/sign-in", "/app/invite?token=abc", "/app/some/deeper/page"].map((path) => api.fetch(path)));
    const bodies = await Promise.all(pages.map((res) => res.text()));
    for (const res of pages) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(new Set(bodies).size).toBe(1);
    const html = bodies[0]!;
    // Every script is a file of its own.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let firstPageBytes = 0;
    for (const path of assets) {
      const res = await api.fetch(path, { headers: { "accept-encoding": "gzip" } });
      firstPageBytes += gzipSync(Buffer.from(await res.arrayBuffer())).length;
      expect({ path, status: res.status, cache: res.headers.get("cache-control") }).toEqual({ path, status: 200, cache: "public, max-age=31536000, immutable" });
      expect(res.headers.get("content-type")).toMatch(/^(text\/javascript|text\/css)/);
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    // Issue 38's goal for the first page: at most 200 KB of script and style, gzipped (the build prints each file's size).
    expect(firstPageBytes).toBeLessThanOrEqual(200 * 1024);
    const etag = pages[0]!.headers.get("etag")!;
    expect((await api.fetch("/app/", { headers: { "if-none-match": etag } })).status).toBe(304);
    // A script name that is not (or no longer) built is missing, not the page.
    expect((await api.fetch("/app/assets/gone-1234.js")).status).toBe(404);
  });

  it("serves the console on the service's own address only, never on a status page's custom domain", async () => {
    for (const path of ["/app/", "/app/sign-in", `/app/${assetOf(await (await api.fetch("/app/")).text())}`]) {
      const res = await request(api.baseUrl, path, { headers: { host: "status.elsewhere.example" } });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect((await request(api.baseUrl, path, { headers: { host: "vigil.example.com" } })).status).toBe(200);
    }
  });

  it("answers 503 at /app/ where the console is not built (CONSOLE_DIR without index.html), and still redirects /", async () => {
    const unbuilt = await startTestApi("pglite", { consoleDir: join(tmpdir(), `no-console-${process.pid}`) });
    try {
      const res = await unbuilt.fetch("/app/sign-in");
      expect(res.status).toBe(503);
      expect((await jsonOf(res)).message).toContain("the console is not built");
      expect((await unbuilt.fetch("/", { redirect: "manual" })).headers.get("location")).toBe("/app/");
    } finally {
      await unbuilt.close();
    }
  });
});

describe("the console's pages in Chromium", () => {
  it("signs in with a password, shows the wrong password's error with the focus on it, and signs out", async () => {
    const person = await createPerson(api, { [ws.slug]: "editor" });
    const page = await open(`${api.baseUrl}/`);
    await page.waitForURL(`${api.baseUrl}/app/sign-in`);
    await expectAccessible(page, "sign-in");
    await screenshotBoth(page, "sign-in");

    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await shows(page.getByText("Email: must not be empty"));
    expect(await focused(page)).toBe("email");

    await signInWith(page, person.email, "not the password at all");
    const alert = page.getByRole("alert");
    await shows(alert, "wrong email or password");
    expect(await focused(page)).toBe("alert");
    await expectAccessible(page, "sign-in with an error");

    await signInWith(page, person.email, person.password);
    // The landing page is the monitors' overview; who is signed in shows in the header.
    await shows(heading(page), "Monitors");
    await shows(page.getByTestId("signed-in-as"), "Person ");
    await expectAccessible(page, "home");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${api.baseUrl}/app/sign-in`);
    await page.goto(`${api.baseUrl}/app/`);
    await page.waitForURL(`${api.baseUrl}/app/sign-in`);
  });

  it("asks for the second factor's code after the password, in light and dark", async () => {
    const person = await createPerson(api, { [ws.slug]: "viewer" });
    const { secret } = await enrolSecondFactor(api.baseUrl, await sessionCookie(api.baseUrl, person.email, person.password));
    const page = await open(`${api.baseUrl}/app/sign-in`, "dark");
    await expectAccessible(page, "sign-in, dark");
    await signInWith(page, person.email, person.password);
    await shows(heading(page), "Enter your code");
    await expectAccessible(page, "code step, dark");
    await page.getByLabel("Code").fill("not-a-code");
    await page.getByRole("button", { name: "Sign in" }).click();
    await shows(page.getByRole("alert"), "wrong");
    // The enrolment used the current step's code, which is not accepted twice.
    await page.getByLabel("Code").fill(totpCodeAt(secret, Date.now() + ACCOUNTS.totpPeriodSeconds * 1000));
    await page.getByRole("button", { name: "Sign in" }).click();
    await shows(heading(page), "Monitors");
  });

  it("makes the first owner from the link the first start prints, asking for the email the invitation lacks", async () => {
    const fresh = await api.workspace();
    const { token } = await api.admin.inviteUser({ workspaceSlug: fresh.slug, email: "", role: "owner" }, 24);
    const page = await open(onTestServer(inviteUrl(PUBLIC_URL, token)));
    await shows(heading(page), "Accept an invitation");
    await expectAccessible(page, "invitation");

    await page.getByLabel("Your name").fill("First Owner");
    await page.getByLabel("Password").fill("password1234");
    await page.getByRole("button", { name: "Accept and sign in" }).click();
    // The common-password rule runs in the browser, before anything is sent.
    await shows(page.getByText("Password: is one of the most common passwords; choose another"));

    await page.getByLabel("Password").fill(GOOD_PASSWORD);
    await page.getByRole("button", { name: "Accept and sign in" }).click();
    await shows(page.getByLabel("Email"));
    expect(await focused(page)).toBe("email");
    await expectAccessible(page, "invitation asking for an email");
    await page.getByLabel("Email").fill("first-owner@console.test");
    await page.getByRole("button", { name: "Accept and sign in" }).click();
    await shows(heading(page), "Monitors");
    await shows(page.getByTestId("signed-in-as"), "First Owner");
    await shows(page.getByTestId("current-workspace"), "as owner");
  });

  it("accepts a mailed invitation", async () => {
    const admin = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "admin");
    const email = "invited@console.test";
    await sessionClient(MemberService, api.baseUrl, admin.token, { workspace: ws.slug }).inviteMember({ email, role: "editor" });
    const page = await open(onTestServer(firstLinkOf(await eventually(() => mailbox.mailTo(email)))));
    await page.getByLabel("Your name").fill("Invited Person");
    await page.getByLabel("Password").fill(GOOD_PASSWORD);
    await page.getByRole("button", { name: "Accept and sign in" }).click();
    await shows(heading(page), "Monitors");
    await shows(page.getByTestId("signed-in-as"), "Invited Person");
    await shows(page.getByTestId("current-workspace"), "as editor");
  });

  it("resets a password from the mailed link", async () => {
    const person = await createPerson(api, { [ws.slug]: "viewer" });
    const page = await open(`${api.baseUrl}/app/sign-in`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await shows(heading(page), "Reset your password");
    await expectAccessible(page, "reset request");
    await page.getByLabel("Email").fill(person.email);
    await page.getByRole("button", { name: "Mail me a link" }).click();
    await shows(page.getByRole("status"));

    await page.goto(onTestServer(firstLinkOf(await eventually(() => mailbox.mailTo(person.email)))));
    await shows(heading(page), "Choose a new password");
    await expectAccessible(page, "reset confirmation");
    await page.getByLabel("New password").fill("short");
    await page.getByRole("button", { name: "Change my password" }).click();
    await shows(page.getByText("New password: must be 12 to"));
    const newPassword = "a brand new passphrase";
    await page.getByLabel("New password").fill(newPassword);
    await page.getByRole("button", { name: "Change my password" }).click();
    await shows(heading(page), "Password changed");

    await page.getByRole("link", { name: "Sign in" }).click();
    await signInWith(page, person.email, newPassword);
    await shows(heading(page), "Monitors");
  });

  it("verifies an email from the mailed link", async () => {
    const person = await createPerson(api, { [ws.slug]: "viewer" });
    const cookie = await sessionCookie(api.baseUrl, person.email, person.password);
    await accountClient(api.baseUrl, cookie).sendVerificationEmail({});
    const page = await open(onTestServer(firstLinkOf(await eventually(() => mailbox.mailTo(person.email)))));
    await shows(heading(page), "Verify your email");
    await expectAccessible(page, "email verification");
    await page.getByRole("button", { name: "Verify my email address" }).click();
    await shows(heading(page), "Email verified");
    expect((await accountClient(api.baseUrl, cookie).getProfile({})).profile?.emailVerified).toBe(true);
  });

  it("switches workspace: every RPC names the chosen one, which outlives a reload, and the SSO callback's ?workspace= chooses", async () => {
    const other = await api.workspace();
    const person = await createPerson(api, { [ws.slug]: "editor", [other.slug]: "viewer" });
    const page = await open(`${api.baseUrl}/app/sign-in`);
    await signInWith(page, person.email, person.password);
    await shows(page.getByTestId("current-workspace"), "as editor");

    const rpc = page.waitForRequest((req) => req.url().includes("/account.v1.AccountService/") && req.headers()[WORKSPACE_HEADER] === other.slug);
    await page.getByLabel("Act in").selectOption(other.slug);
    await rpc;
    await shows(page.getByTestId("current-workspace"), "as viewer");

    await page.reload();
    await shows(page.getByTestId("current-workspace"), "as viewer");
    expect(await page.getByLabel("Act in").inputValue()).toBe(other.slug);

    const fromCallback = page.waitForRequest((req) => req.url().includes("/account.v1.AccountService/") && req.headers()[WORKSPACE_HEADER] === ws.slug);
    await page.goto(`${api.baseUrl}/app/?workspace=${ws.slug}`);
    await fromCallback;
    await shows(page.getByTestId("current-workspace"), "as editor");
    // The slug leaves the address once taken, so that a bookmark does not choose it again.
    await eventually(() => expect(new URL(page.url()).search).toBe(""));
  });

  it("sends the SSO form to the workspace's start address", async () => {
    const page = await open(`${api.baseUrl}/app/sign-in`);
    const start = page.waitForRequest((req) => req.url().includes("/v1/auth/oidc/"));
    await page.getByLabel("Workspace").fill("acme");
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    expect(new URL((await start).url()).pathname).toBe("/v1/auth/oidc/acme/start");
  });

  it("shows a page of its own for an unknown address", async () => {
    const page = await open(`${api.baseUrl}/app/no/such/page`);
    await shows(heading(page), "Page not found");
    await expectAccessible(page, "not found");
  });
});
