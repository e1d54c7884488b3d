import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { startTestApi, type TestApi, type TestApiOptions, type WorkspaceKeys } from "./api";
import { join } from "node:path";
import { PHONE, artifactsDir, launchBrowser } from "./browser";
import { startMailbox } from "./page-access";
import { signedInPerson } from "./people";
import type { Role } from "@vigil/domain";

/** How the console's browser tests drive it: a phone's width, the CSP watched, axe-core on each page. */
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export { PHONE };

export type ConsolePage = Page & { violations: string[] };

/**
 * Fresh browsers (no cookie, no localStorage) on `browser`, each with every
 * Content Security Policy violation recorded: the console must run under its
 * policy. `closeAll` after each test.
 */
function consoleBrowsers(browser: () => Browser) {
  const contexts: BrowserContext[] = [];
  return {
    async open(url: string, colorScheme: "light" | "dark" = "light"): Promise<ConsolePage> {
      const context = await browser().newContext({ viewport: PHONE, colorScheme });
      contexts.push(context);
      const page = Object.assign(await context.newPage(), { violations: [] as string[] });
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) page.violations.push(message.text());
      });
      await page.goto(url);
      return page;
    },
    closeAll: () => Promise.all(contexts.splice(0).map((c) => c.close())),
  };
}

/**
 * A suite's console: a control plane on PGlite (PUBLIC_URL `publicUrl`) that
 * mails to a mailbox of its own, and Chromium; the hooks are registered here,
 * so `api` and `mailbox` are there from the suite's first `beforeAll` on.
 */
export function consoleTestEnvironment(publicUrl: string, limits?: TestApiOptions["limits"]) {
  const env = {} as { api: TestApi; mailbox: Awaited<ReturnType<typeof startMailbox>>; browser: Browser };
  const browsers = consoleBrowsers(() => env.browser);
  beforeAll(async () => {
    env.mailbox = await startMailbox();
    env.api = await startTestApi("pglite", { providerEnv: { SMTP_URL: env.mailbox.url, PUBLIC_URL: publicUrl }, limits });
    env.browser = await launchBrowser();
  });
  afterEach(browsers.closeAll);
  afterAll(async () => {
    await env.browser?.close();
    await env.api?.close();
    await env.mailbox?.close();
  });
  /** A person of `role` in the workspace `ws` (a new one when not given), signed in to the console, on its first page (Monitors). */
  async function signedInAs(role: Role, ws?: WorkspaceKeys) {
    const workspace = ws ?? (await env.api.workspace());
    const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, workspace.slug, role);
    const page = await browsers.open(`${env.api.baseUrl}/app/sign-in`);
    await signInWith(page, person.email, person.password);
    await shows(heading(page), "Monitors");
    return { ws: workspace, slug: workspace.slug, person, page };
  }
  /** The same, gone to the page `link` of the header. */
  async function signedInAt(role: Role, link: string, ws?: WorkspaceKeys) {
    const signedIn = await signedInAs(role, ws);
    await signedIn.page.getByRole("navigation").getByRole("link", { name: link, exact: true }).click();
    await shows(heading(signedIn.page), link);
    return signedIn;
  }
  return Object.assign(env, { open: browsers.open, signedInAs, signedInAt });
}

/** axe-core on the page as it is (its script evaluated through the DevTools protocol, which the page's CSP does not govern). */
export async function expectAccessible(page: ConsolePage, what: string) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const { violations } = await axe.run();
    return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  expect({ what, violations }).toEqual({ what, violations: [] });
  // Usable at 390 px: nothing wider than the screen.
  expect({ what, scrollWidth: await page.evaluate<number>("document.documentElement.scrollWidth") }).toEqual({ what, scrollWidth: PHONE.width });
  expect({ what, csp: page.violations }).toEqual({ what, csp: [] });
}

/**
 * The page as it is, light and dark, kept in test-artifacts/console/<name>-light.png and -dark.png for people
 * to look at (the scheme is switched on the page, which is left light).
 */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  const dir = artifactsDir("console");
  for (const colorScheme of ["dark", "light"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: join(dir, `${name}-${colorScheme}.png`), fullPage: true });
  }
}

/** Waits until `locator` (holding `text`, when given) is on the page. */
export const shows = (locator: Locator, text?: string) => (text === undefined ? locator : locator.filter({ hasText: text })).first().waitFor();

/** The name (or, for the form's message, the role) of what has the keyboard focus. */
export const focused = (page: Page) => page.evaluate<string | null>("document.activeElement.getAttribute('name') ?? document.activeElement.getAttribute('role')");

export const heading = (page: Page) => page.getByRole("heading", { level: 1 });

export async function signInWith(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
