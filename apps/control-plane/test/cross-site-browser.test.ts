import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext } from "playwright-core";
import { SESSION_COOKIE } from "@vigil/domain";
import { startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { launchBrowser } from "./support/browser";
import { GOOD_PASSWORD, signedInPerson } from "./support/people";

/**
 * docs/accounts.md, "Cross-site requests": a page on another origin, in a
 * browser that holds a person's session cookie, tries to act as them. The
 * API is at http://127.0.0.1:<port>; the pages are served from
 * http://localhost:<other port> (another site: SameSite=Lax keeps the cookie
 * off) and from http://127.0.0.1:<other port> (the same site on another port:
 * the cookie is sent, and the origin check refuses it).
 */
const CREATE = "/monitor.v1.MonitorService/CreateHTTPMonitor";
const MONITOR = { monitor: { name: "made cross-site", url: "https://example.com", periodicity: "PERIODICITY_1M" } };

/** Forms another site can submit without asking: a text/plain body shaped as Connect's JSON (name "=" value), and signing out. */
const attackPage = () => {
  const [name, value] = JSON.stringify({ ...MONITOR, pad: "=" }).split("=");
  return `<!doctype html><title>elsewhere</title>
<form id="connect" method="post" enctype="text/plain" action="${api.baseUrl}${CREATE}"><input type="hidden" name='${name}' value='${value}'><button>go</button></form>
<form id="signout" method="post" action="${api.baseUrl}/v1/auth/sign-out"><input type="hidden" name="signOut" value="1"><button>go</button></form>`;
};

let api: TestApi;
let ws: WorkspaceKeys;
let browser: Browser;
let pages: Server;

beforeAll(async () => {
  api = await startTestApi("pglite");
  ws = await api.workspace();
  browser = await launchBrowser();
  pages = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(attackPage()));
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await api?.close();
});

/** A browser signed in as an editor through POST /v1/auth/sign-in from the service's own origin: the session token it holds. */
async function signedInBrowser(): Promise<{ context: BrowserContext; token: string; answers: Promise<string>[] }> {
  const person = await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, "editor");
  const context = await browser.newContext();
  // What reached the API: the request, whether the browser sent the session cookie with it, and the answer.
  const answers: Promise<string>[] = [];
  context.on("response", (res) => {
    if (!res.url().startsWith(api.baseUrl)) return;
    const cookie = res.request().headerValue("cookie");
    answers.push(cookie.then((sent) => `${res.request().method()} ${new URL(res.url()).pathname} ${sent?.includes(SESSION_COOKIE) ? "with" : "without"} the cookie: ${res.status()}`));
  });
  const own = await context.newPage();
  await own.goto(`${api.baseUrl}/healthz`);
  const status = await own.evaluate(
    async ({ email, password }) => (await fetch("/v1/auth/sign-in", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) })).status,
    { email: person.email, password: GOOD_PASSWORD },
  );
  expect(status).toBe(200);
  const cookie = (await context.cookies(api.baseUrl)).find((c) => c.name === SESSION_COOKIE)!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  await own.close();
  answers.length = 0;
  return { context, token: cookie.value, answers };
}

const sessionValid = async (token: string) => (await api.fetch("/v1/whoami", { headers: { cookie: `${SESSION_COOKIE}=${token}` } })).status === 200;
const monitorsMade = () => api.db.prisma.monitor.count({ where: { name: MONITOR.monitor.name } });

/** Submits the form `id` of the page at `url` in a tab of its own (a top-level navigation, as a real attack is), and waits for the API's answer. */
async function submitForm(context: BrowserContext, url: string, id: string, action: string) {
  const tab = await context.newPage();
  await tab.goto(url);
  const [answer] = await Promise.all([tab.waitForResponse((res) => res.url() === action), tab.locator(`#${id} button`).click()]);
  // The raw request headers (whether the cookie went) reach Playwright apart from the answer: read them
  // before the tab closes, or the answers' promise above may wait for them forever.
  await answer.request().headerValue("cookie");
  // The tab shows the answer: closed while that navigation was still committing, it hung (about one run in ten).
  await tab.waitForLoadState();
  await tab.close();
}

describe.each([
  ["another site", "localhost", "without"],
  ["the same site on another port", "127.0.0.1", "with"],
])("a page on %s", (_where, host, cookie) => {
  it("cannot act with the person's session: forms, a preflighted JSON fetch and a text/plain fetch are refused and change nothing", async () => {
    const { context, token, answers } = await signedInBrowser();
    const page = `http://${host}:${(pages.address() as AddressInfo).port}/`;

    // (a) The forms.
    await submitForm(context, page, "connect", `${api.baseUrl}${CREATE}`);
    await submitForm(context, page, "signout", `${api.baseUrl}/v1/auth/sign-out`);

    const tab = await context.newPage();
    await tab.goto(page);

    // (b) Connect's own JSON POST with the cookie: it needs a CORS preflight, which is not granted.
    const preflighted = await tab.evaluate(
      async ({ url, body }) => {
        try {
          const res = await fetch(url, { method: "POST", credentials: "include", signal: AbortSignal.timeout(20_000), headers: { "content-type": "application/json" }, body });
          return `answered ${res.status}`;
        } catch (error) {
          return `failed: ${(error as Error).name}`;
        }
      },
      { url: `${api.baseUrl}${CREATE}`, body: JSON.stringify(MONITOR) },
    );
    expect(preflighted).toBe("failed: TypeError");

    // (c) The same body as text/plain: a "simple" request the browser sends without asking.
    await Promise.all([
      tab.waitForResponse((res) => res.url() === `${api.baseUrl}${CREATE}`),
      tab.evaluate(
        ({ url, body }) => fetch(url, { method: "POST", mode: "no-cors", credentials: "include", signal: AbortSignal.timeout(20_000), headers: { "content-type": "text/plain" }, body }),
        { url: `${api.baseUrl}${CREATE}`, body: JSON.stringify(MONITOR) },
      ),
    ]);

    expect(await monitorsMade()).toBe(0);
    expect(await sessionValid(token)).toBe(true);
    // Every request that reached the API was refused: Connect takes no form or text/plain body, and signing out checks the origin.
    expect(await Promise.all(answers)).toEqual([
      `POST ${CREATE} ${cookie} the cookie: 415`,
      `POST /v1/auth/sign-out ${cookie} the cookie: 403`,
      `POST ${CREATE} ${cookie} the cookie: 415`,
    ]);
    await context.close();
  });
});

it("lets the service's own origin do the same with the session (the attacks above had a cookie to abuse)", async () => {
  const { context, token } = await signedInBrowser();
  const own = await context.newPage();
  await own.goto(`${api.baseUrl}/healthz`);
  const created = await own.evaluate(
    async ({ url, body }) => (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).status,
    { url: CREATE, body: JSON.stringify(MONITOR) },
  );
  expect(created).toBe(200);
  expect(await monitorsMade()).toBe(1);
  await api.db.prisma.monitor.deleteMany({ where: { name: MONITOR.monitor.name } });

  const signedOut = await own.evaluate(async () => (await fetch("/v1/auth/sign-out", { method: "POST" })).status);
  expect(signedOut).toBe(200);
  expect(await sessionValid(token)).toBe(false);
  await context.close();
});
