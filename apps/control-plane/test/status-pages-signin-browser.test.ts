import type { Browser } from "playwright-core";
import { closeEmailTransports } from "@vigil/notifications";
import { startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { launchBrowser } from "./support/browser";
import { eventually } from "../../../test/eventually";
import { createPage, firstLinkOf, startMailbox } from "./support/page-access";

let api: TestApi;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let workspace: WorkspaceKeys;
let browser: Browser;

beforeAll(async () => {
  mailbox = await startMailbox();
  api = await startTestApi("pglite", { providerEnv: { SMTP_URL: mailbox.url } });
  workspace = await api.workspace();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  closeEmailTransports();
  await mailbox?.close();
});

it("a visitor signs in to a password page with the form and stays signed in", async () => {
  const { slug, title } = await createPage(api.db.prisma, workspace.slug, { accessType: "password", password: "open sesame" });
  const context = await browser.newContext();
  const tab = await context.newPage();
  const first = await tab.goto(`${api.baseUrl}/status/${slug}`);
  expect(first?.status()).toBe(401);
  expect(await tab.content()).not.toContain(title);

  await tab.fill('input[type="password"]', "wrong");
  await Promise.all([tab.waitForLoadState("load"), tab.click('button[type="submit"]')]);
  await tab.getByText("Wrong password.").waitFor();

  await tab.fill('input[type="password"]', "open sesame");
  const [signedIn] = await Promise.all([tab.waitForResponse((res) => res.url() === `${api.baseUrl}/status/${slug}`), tab.click('button[type="submit"]')]);
  expect(signedIn.status()).toBe(200);
  expect(tab.url()).toBe(`${api.baseUrl}/status/${slug}`);
  await tab.getByText(title).first().waitFor();

  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false });
  const again = await tab.goto(`${api.baseUrl}/status/${slug}/summary.json`);
  expect(again?.status()).toBe(200);
  await context.close();
});

it("a visitor of an email-domain page signs in with the emailed link", async () => {
  const { slug, title } = await createPage(api.db.prisma, workspace.slug, { accessType: "email-domain", authEmailDomains: ["acme.example"] });
  const context = await browser.newContext();
  const tab = await context.newPage();
  expect((await tab.goto(`${api.baseUrl}/status/${slug}`))?.status()).toBe(401);

  await tab.fill('input[type="email"]', "ann@acme.example");
  await Promise.all([tab.waitForLoadState("load"), tab.click('button[type="submit"]')]);
  await tab.getByText("Check your email").waitFor();

  const mail = await eventually(() => mailbox.mailTo("ann@acme.example"));
  // The link is built from PUBLIC_URL (https://vigil.test in tests): the same path, opened on the test's server.
  const link = new URL(firstLinkOf(mail));
  expect(link.origin).toBe("https://vigil.test");
  const opened = await tab.goto(`${api.baseUrl}${link.pathname}`);
  expect(opened?.status()).toBe(200);
  expect(tab.url()).toBe(`${api.baseUrl}/status/${slug}`);
  await tab.getByText(title).first().waitFor();

  // Used once: opening it again explains and offers a new link.
  const reused = await tab.goto(`${api.baseUrl}${link.pathname}`);
  expect(reused?.status()).toBe(410);
  await tab.getByRole("link", { name: "Ask for a new sign-in link" }).click();
  // Still signed in: the page itself, not the form.
  await tab.getByText(title).first().waitFor();
  await context.close();
});
