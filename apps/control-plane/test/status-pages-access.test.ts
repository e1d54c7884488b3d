import { createHash } from "node:crypto";
import { closeEmailTransports } from "@vigil/notifications";
import { API_KEY_HEADER } from "../src/auth/api-keys";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { eventually } from "../../../test/eventually";
import { createPage, firstLinkOf, request, sessionCookieOf, startMailbox, type RawResponse } from "./support/page-access";

let mailbox: Awaited<ReturnType<typeof startMailbox>>;

beforeAll(async () => {
  mailbox = await startMailbox();
});
afterAll(async () => {
  closeEmailTransports();
  await mailbox?.close();
});

/** The HTML part of a mail, quoted-printable soft breaks and escapes undone. */
const htmlPartOf = (mail: { raw: string }) =>
  (/Content-Type: text\/html[^]*?\r\n\r\n([^]*?)\r\n--/i.exec(mail.raw)?.[1] ?? "")
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
/** Where the page's form posts to; attributes are read in any order and case, as HTML does. */
const formPostTarget = (html: string) => /<form(?=[^>]* method="post")[^>]* action="([^"]*)"/i.exec(html)?.[1];
const cookieAttributes = (res: RawResponse) => res.headers["set-cookie"]![0]!.split(";").map((part) => part.trim().toLowerCase());

describe.each(BACKENDS)("status page access on %s", (backend) => {
  let api: TestApi;
  let workspace: WorkspaceKeys;

  beforeAll(async () => {
    mailbox.mails.length = 0;
    api = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url } });
    workspace = await api.workspace();
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => request(api.baseUrl, path, { headers });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) => request(api.baseUrl, path, { form, headers });
  const page = (fields: Parameters<typeof createPage>[2]) => createPage(api.db.prisma, workspace.slug, fields);

  // The history is no companion, but the same access holds for it.
  const COMPANIONS = ["/summary.json", "/badge.svg", "/feed.atom", "/history"];

  /** Everything a protected page serves, none of it readable without a session. */
  async function expectLockedOut(slug: string, title: string, headers: Record<string, string> = {}) {
    const html = await get(`/status/${slug}`, headers);
    expect(html.status).toBe(401);
    expect(html.body).not.toContain(title);
    for (const companion of COMPANIONS) {
      const res = await get(`/status/${slug}${companion}`, headers);
      expect({ companion, status: res.status }).toEqual({ companion, status: 401 });
      expect(res.body).not.toContain(title);
    }
  }

  async function expectReadable(slug: string, title: string, cookie: string) {
    const html = await get(`/status/${slug}`, { cookie });
    expect(html.status).toBe(200);
    expect(html.body).toContain(title);
    expect(html.headers["cache-control"]).toMatch(/^private/);
    for (const companion of COMPANIONS) {
      const res = await get(`/status/${slug}${companion}`, { cookie });
      expect({ companion, status: res.status }).toEqual({ companion, status: 200 });
      expect(res.headers["cache-control"]).toMatch(/^private/);
      if (companion !== "/badge.svg") expect(res.body).toContain(title);
    }
  }

  describe("public pages", () => {
    it("are read by anyone", async () => {
      const { slug, title } = await page({ accessType: "public" });
      const res = await get(`/status/${slug}`);
      expect(res.status).toBe(200);
      expect(res.body).toContain(title);
    });
  });

  describe("password pages", () => {
    it("show a sign-in form without a session, and nothing of the page", async () => {
      const { slug, title } = await page({ accessType: "password", password: "s3cret" });
      await expectLockedOut(slug, title);
      const form = await get(`/status/${slug}`);
      expect(form.headers["cache-control"]).toBe("no-store");
      expect(form.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(formPostTarget(form.body)).toBe(`/status/${slug}/sign-in`);
      expect(form.body).toMatch(/<input type="password"[^>]* name="password"/);
    });

    it("sign in with the right password: a session cookie and a 303 back to the page", async () => {
      const { slug, title } = await page({ accessType: "password", password: "s3cret" });
      const res = await post(`/status/${slug}/sign-in`, { password: "s3cret" });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/status/${slug}`);
      const attributes = cookieAttributes(res);
      expect(attributes).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "path=/", `max-age=${30 * 24 * 3600}`]));
      // Over plain HTTP to a host that is not PUBLIC_URL's, the cookie cannot be Secure.
      expect(attributes).not.toContain("secure");
      await expectReadable(slug, title, sessionCookieOf(res));
    });

    it("show the form at the history and an incident's page too, and bring the visitor back there; a crafted return leads to the page", async () => {
      const { slug, title } = await page({ accessType: "password", password: "s3cret" });
      for (const view of [`/status/${slug}/history`, `/status/${slug}/incidents/0193a4b2-0000-7000-8000-000000000001`]) {
        const form = await get(view);
        expect([view, form.status, formPostTarget(form.body)]).toEqual([view, 401, `/status/${slug}/sign-in`]);
        expect(form.body).not.toContain(title);
        expect(form.body).toContain(`<input type="hidden" name="next" value="${view}"/>`);
        const wrong = await post(`/status/${slug}/sign-in`, { password: "nope", next: view });
        expect(wrong.body).toContain(`name="next" value="${view}"`);
        const res = await post(`/status/${slug}/sign-in`, { password: "s3cret", next: view });
        expect([view, res.status, res.headers.location]).toEqual([view, 303, view]);
      }
      for (const next of ["https://evil.test/", "//evil.test/history", "/status/other/history", `/status/${slug}/history/../../x`, `/status/${slug}/sign-in`, `/status/${slug}history`]) {
        const res = await post(`/status/${slug}/sign-in`, { password: "s3cret", next });
        expect([next, res.status, res.headers.location]).toEqual([next, 303, `/status/${slug}`]);
      }
      const host = "status-next.acme.example";
      await page({ accessType: "password", password: "s3cret", customDomain: host });
      const form = await get("/history", { host });
      expect([form.status, formPostTarget(form.body)]).toEqual([401, "/sign-in"]);
      expect(form.body).toContain(`name="next" value="/history"`);
      const res = await post("/sign-in", { password: "s3cret", next: "/history" }, { host, origin: `http://${host}` });
      expect([res.status, res.headers.location]).toEqual([303, "/history"]);
    });

    it("make the cookie Secure when the visitor came over HTTPS", async () => {
      const { slug } = await page({ accessType: "password", password: "s3cret" });
      // PUBLIC_URL is https://vigil.test: a request to that host came through its TLS proxy.
      const onPublicUrl = await post(`/status/${slug}/sign-in`, { password: "s3cret" }, { host: "vigil.test" });
      expect(cookieAttributes(onPublicUrl)).toContain("secure");
      const forwarded = await post(`/status/${slug}/sign-in`, { password: "s3cret" }, { "x-forwarded-proto": "https" });
      expect(cookieAttributes(forwarded)).toContain("secure");
    });

    it("answer a wrong password with 401 and the form, and no cookie", async () => {
      const { slug, title } = await page({ accessType: "password", password: "s3cret" });
      const res = await post(`/status/${slug}/sign-in`, { password: "guess" });
      expect(res.status).toBe(401);
      expect(res.headers["set-cookie"]).toBeUndefined();
      expect(res.body).toContain("Wrong password.");
      expect(res.body).toMatch(/<input type="password"[^>]* name="password"/);
      expect(res.body).not.toContain(title);
    });

    it("refuse a cross-site post (403, no cookie) but take Vigil's own origins", async () => {
      const { slug } = await page({ accessType: "password", password: "s3cret", customDomain: "status.acme.example" });
      for (const origin of ["https://evil.example", "null", "http://vigil.test"]) {
        const res = await post(`/status/${slug}/sign-in`, { password: "s3cret" }, { origin });
        expect({ origin, status: res.status, cookie: res.headers["set-cookie"] }).toEqual({ origin, status: 403, cookie: undefined });
      }
      for (const origin of ["https://vigil.test", api.baseUrl, "https://status.acme.example"]) {
        const res = await post(`/status/${slug}/sign-in`, { password: "s3cret" }, { origin });
        expect({ origin, status: res.status }).toEqual({ origin, status: 303 });
      }
    });

    it("limit wrong passwords to 10 a minute per client and page: then 429 with Retry-After, even for the right one", async () => {
      const { slug } = await page({ accessType: "password", password: "s3cret" });
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect((await post(`/status/${slug}/sign-in`, { password: `guess ${attempt}` })).status).toBe(401);
      }
      for (const password of ["guess 11", "s3cret"]) {
        const res = await post(`/status/${slug}/sign-in`, { password });
        expect(res.status).toBe(429);
        expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
        expect(res.headers["set-cookie"]).toBeUndefined();
      }
      // Another page is counted apart.
      const other = await page({ accessType: "password", password: "s3cret" });
      expect((await post(`/status/${other.slug}/sign-in`, { password: "s3cret" })).status).toBe(303);
    });

    it("count each attempt before verifying it: of 40 wrong passwords sent at once 10 are verified, the rest and a right one after them answer 429", async () => {
      const { slug } = await page({ accessType: "password", password: "s3cret" });
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(`/status/${slug}/sign-in`, { password: `guess ${i}` })));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30);
      const right = await post(`/status/${slug}/sign-in`, { password: "s3cret" });
      expect(right.status).toBe(429);
      expect(Number(right.headers["retry-after"])).toBeGreaterThan(0);
      expect(right.headers["set-cookie"]).toBeUndefined();
    });

    it("count only failures: a right password gives its attempt back", async () => {
      const { slug } = await page({ accessType: "password", password: "s3cret" });
      for (let attempt = 1; attempt <= 9; attempt++) expect((await post(`/status/${slug}/sign-in`, { password: `guess ${attempt}` })).status).toBe(401);
      for (let reader = 1; reader <= 12; reader++) expect((await post(`/status/${slug}/sign-in`, { password: "s3cret" })).status).toBe(303);
      expect((await post(`/status/${slug}/sign-in`, { password: "guess 10" })).status).toBe(401);
      expect((await post(`/status/${slug}/sign-in`, { password: "s3cret" })).status).toBe(429);
    });

    it("end every session when the password changes", async () => {
      const { id, slug, title } = await page({ accessType: "password", password: "s3cret" });
      const cookie = sessionCookieOf(await post(`/status/${slug}/sign-in`, { password: "s3cret" }));
      await expectReadable(slug, title, cookie);

      const update = await api.fetch("/status_page.v1.StatusPageService/UpdateStatusPage", {
        method: "POST",
        headers: { "content-type": "application/json", [API_KEY_HEADER]: workspace.write.key },
        body: JSON.stringify({ id, statusPage: { password: "n3w" }, updateMask: "password" }),
      });
      expect(update.status).toBe(200);

      await expectLockedOut(slug, title, { cookie });
      expect((await post(`/status/${slug}/sign-in`, { password: "s3cret" })).status).toBe(401);
      await expectReadable(slug, title, sessionCookieOf(await post(`/status/${slug}/sign-in`, { password: "n3w" })));
    });

    it("do not take a forged or another page's cookie", async () => {
      const first = await page({ accessType: "password", password: "s3cret" });
      const second = await page({ accessType: "password", password: "s3cret" });
      const cookie = sessionCookieOf(await post(`/status/${first.slug}/sign-in`, { password: "s3cret" }));
      const [name, value] = cookie.split("=") as [string, string];
      await expectLockedOut(second.slug, second.title, { cookie: `${name.replace(first.id, second.id)}=${value}` });
      const [version, expires, signature] = value.split(".");
      await expectLockedOut(first.slug, first.title, { cookie: `${name}=${version}.${Number(expires) + 1}.${signature}` });
    });
  });

  describe("the deployment's own host", () => {
    it("is no page's custom domain, even one stored before it was refused: Vigil keeps its /, companions and /sign-in", async () => {
      // PUBLIC_URL is https://vigil.test; the API refuses this domain now, a page may hold it from before.
      const { slug, title } = await page({ accessType: "password", password: "s3cret", customDomain: "vigil.test" });
      const host = "vigil.test";
      // Vigil's own / leads to its console.
      const root = await get("/", { host });
      expect({ status: root.status, location: root.headers.location }).toEqual({ status: 302, location: "/app/" });
      expect(root.body).not.toContain(title);
      for (const path of ["/summary.json", "/badge.svg", "/feed.atom"]) {
        const res = await get(path, { host });
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.body).not.toContain(title);
      }
      expect((await post("/sign-in", { password: "s3cret" }, { host })).status).toBe(404);
      // At its Vigil address the page is what it is without a custom domain.
      const form = await get(`/status/${slug}`, { host });
      expect(form.status).toBe(401);
      expect(formPostTarget(form.body)).toBe(`/status/${slug}/sign-in`);
      const signedIn = await post(`/status/${slug}/sign-in`, { password: "s3cret" }, { host });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.location).toBe(`/status/${slug}`);
    });
  });

  describe("email-domain pages", () => {
    const tokenRows = (pageId: string) => api.db.prisma.statusPageSignInToken.findMany({ where: { pageId } });
    const mailsTo = (address: string) => mailbox.mailsTo(address);

    it("show an email form without a session, and nothing of the page", async () => {
      const { slug, title } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      await expectLockedOut(slug, title);
      const form = await get(`/status/${slug}`);
      expect(formPostTarget(form.body)).toBe(`/status/${slug}/sign-in`);
      expect(form.body).toMatch(/<input type="email"[^>]* name="email"/);
    });

    it("email a single-use link from PUBLIC_URL that signs in with a 303; a second use answers 410", async () => {
      const { id, slug, title } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const res = await post(`/status/${slug}/sign-in`, { email: "Ann@ACME.example" });
      expect(res.status).toBe(200);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.body).toContain("Check your email");

      const link = firstLinkOf(await eventually(() => mailbox.mailTo("Ann@ACME.example")));
      expect(link).toMatch(new RegExp(`^https://vigil\\.test/status/${slug}/sign-in/[A-Za-z0-9_-]{43}$`));
      const token = link.slice(link.lastIndexOf("/") + 1);
      // Only the token's hash is stored.
      const rows = await tokenRows(id);
      expect(rows.map((row) => row.tokenHash)).toEqual([createHash("sha256").update(token).digest("hex")]);
      expect(JSON.stringify(rows)).not.toContain(token);

      const opened = await get(new URL(link).pathname);
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toBe(`/status/${slug}`);
      expect(cookieAttributes(opened)).toEqual(expect.arrayContaining(["httponly", "samesite=lax"]));
      await expectReadable(slug, title, sessionCookieOf(opened));

      const again = await get(new URL(link).pathname);
      expect(again.status).toBe(410);
      expect(again.body).toContain("already used");
      expect(again.body).toContain(`href="/status/${slug}"`);
      expect(again.headers["set-cookie"]).toBeUndefined();
    });

    it("carry the view asked for in the mailed link, so it opens there", async () => {
      const { slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const history = await get(`/status/${slug}/history`);
      expect(history.status).toBe(401);
      expect(history.body).toContain(`name="next" value="/status/${slug}/history"`);
      await post(`/status/${slug}/sign-in`, { email: "nat@acme.example", next: `/status/${slug}/history` });
      const link = firstLinkOf(await eventually(() => mailbox.mailTo("nat@acme.example")));
      expect(link).toMatch(new RegExp(`^https://vigil\\.test/status/${slug}/sign-in/[A-Za-z0-9_-]{43}\\?next=%2Fstatus%2F${slug}%2Fhistory$`));
      const opened = await get(new URL(link).pathname + new URL(link).search);
      expect([opened.status, opened.headers.location]).toEqual([303, `/status/${slug}/history`]);
      expect((await get(`/status/${slug}/history`, { cookie: sessionCookieOf(opened) })).status).toBe(200);
    });

    it("answer an expired link with 410 and an unknown one with 400, both with a way to ask again", async () => {
      const { id, slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const token = "expired-token-of-the-test-000000000000000000";
      await api.db.prisma.statusPageSignInToken.create({
        data: { tokenHash: createHash("sha256").update(token).digest("hex"), pageId: id, email: "ann@acme.example", expiresAt: new Date(Date.now() - 1000) },
      });
      const expired = await get(`/status/${slug}/sign-in/${token}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toContain("expired");
      expect(expired.body).toContain(`href="/status/${slug}"`);
      expect(expired.headers["set-cookie"]).toBeUndefined();

      const unknown = await get(`/status/${slug}/sign-in/not-a-token`);
      expect(unknown.status).toBe(400);
      expect(unknown.body).toContain(`href="/status/${slug}"`);
    });

    it("answer any other address exactly the same, and send it nothing", async () => {
      const { id, slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const other = await post(`/status/${slug}/sign-in`, { email: "eve@other.example" });
      const allowed = await post(`/status/${slug}/sign-in`, { email: "bob@acme.example" });
      expect(other.status).toBe(allowed.status);
      expect(other.body).toBe(allowed.body);
      expect(other.headers["set-cookie"]).toBeUndefined();
      // The allowed address's mail, asked for after, has come: the other one's would have too.
      await eventually(() => mailbox.mailTo("bob@acme.example"));
      expect(mailsTo("eve@other.example")).toEqual([]);
      expect((await tokenRows(id)).map((row) => row.email)).toEqual(["bob@acme.example"]);
    });

    it("refuse a malformed address naming the field, and a cross-site post", async () => {
      const { slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const bad = await post(`/status/${slug}/sign-in`, { email: "not an address" });
      expect(bad.status).toBe(400);
      expect(bad.body).toContain("email: must be an email address");
      const crossSite = await post(`/status/${slug}/sign-in`, { email: "carl@acme.example" }, { origin: "https://evil.example" });
      expect(crossSite.status).toBe(403);
      expect(mailsTo("carl@acme.example")).toEqual([]);
    });

    it("escape the page's title in the sign-in mail's HTML part", async () => {
      const { id, slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      await api.db.prisma.statusPage.update({ where: { id }, data: { title: `<script>alert("t")</script> & 'co'` } });
      expect((await post(`/status/${slug}/sign-in`, { email: "eva@acme.example" })).status).toBe(200);

      const html = htmlPartOf(await eventually(() => mailbox.mailTo("eva@acme.example")));
      expect(html).toContain(`>Sign in to &lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; `);
      expect(html).not.toContain("<script>");
      expect(html).not.toContain(`"t"`);
    });

    it("limit link requests like passwords", async () => {
      const { slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect((await post(`/status/${slug}/sign-in`, { email: `someone${attempt}@other.example` })).status).toBe(200);
      }
      const limited = await post(`/status/${slug}/sign-in`, { email: "dan@acme.example" });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    });

    it("limit link requests sent at once: 10 are taken, the rest answer 429", async () => {
      const { slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const addresses = Array.from({ length: 15 }, (_, i) => `burst${i}@other.example`);
      const statuses = (await Promise.all(addresses.map((email) => post(`/status/${slug}/sign-in`, { email })))).map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    });

    it("on a custom domain: the form posts there, the link points there, and signs in there", async () => {
      const host = "status2.acme.example";
      const { slug, title } = await page({ accessType: "email-domain", authEmailDomains: ["acme.example"], customDomain: host });
      const form = await get("/", { host });
      expect(form.status).toBe(401);
      expect(formPostTarget(form.body)).toBe("/sign-in");
      expect(form.body).not.toContain(title);
      expect((await get("/summary.json", { host })).status).toBe(401);

      expect((await post("/sign-in", { email: "eve@acme.example" }, { host, origin: `http://${host}` })).status).toBe(200);
      const link = firstLinkOf(await eventually(() => mailbox.mailTo("eve@acme.example")));
      // Built from the configured domain, and over HTTPS, as the page is reached through its proxy: not from this plain-HTTP request.
      expect(link).toMatch(new RegExp(`^https://status2\\.acme\\.example/sign-in/[A-Za-z0-9_-]{43}$`));

      const opened = await get(new URL(link).pathname, { host });
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toBe("/");
      const cookie = sessionCookieOf(opened);
      const home = await get("/", { host, cookie });
      expect(home.status).toBe(200);
      expect(home.body).toContain(title);
      expect((await get("/summary.json", { host, cookie })).status).toBe(200);
      // The same session reads the page at its Vigil address too.
      expect((await get(`/status/${slug}`, { cookie })).status).toBe(200);
    });

    it("on a custom domain: the link is made from the configured domain, never from the Host header", async () => {
      const host = "status3.acme.example";
      await page({ accessType: "email-domain", authEmailDomains: ["acme.example"], customDomain: host });
      // Hosts that URL parsers read differently: RFC 3986 takes `status3.acme.example\` for a user name and evil.test for the host.
      for (const [i, forged] of [`${host}\\@evil.test`, `${host}@evil.test`, `${host}/@evil.test`, `${host}:80@evil.test`, `${host}?.evil.test`, `${host}#`].entries()) {
        const email = `forged${i}@acme.example`;
        const signIn = await post("/sign-in", { email }, { host: forged });
        expect({ forged, status: signIn.status }).toEqual({ forged, status: 404 });
        expect({ forged, status: (await get("/", { host: forged })).status }).toEqual({ forged, status: 404 });
        expect({ forged, status: (await get("/summary.json", { host: forged })).status }).toEqual({ forged, status: 404 });
      }
      // A Host with a port, in capitals or with a final dot is the domain: the link is still the configured domain's.
      for (const [i, variant] of [`${host}:8080`, host.toUpperCase(), `${host}.`].entries()) {
        const email = `variant${i}@acme.example`;
        expect((await post("/sign-in", { email }, { host: variant })).status).toBe(200);
        const link = firstLinkOf(await eventually(() => mailbox.mailTo(email)));
        expect({ variant, link }).toEqual({ variant, link: expect.stringMatching(new RegExp(`^https://status3\\.acme\\.example/sign-in/[A-Za-z0-9_-]{43}$`)) });
      }
      // The variants' mails, asked for after, have come: the forged ones' would have too.
      expect(mailbox.mails.filter((mail) => mail.to.some((to) => to.startsWith("forged")))).toEqual([]);
    });
  });
});
