import http from "node:http";
import type { AddressInfo } from "node:net";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Webhook } from "standardwebhooks";
import { SUBSCRIBERS } from "@vigil/domain";
import { closeEmailTransports } from "@vigil/notifications";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { eventually } from "../../../test/eventually";
import { createLogger } from "@vigil/logging";
import { SubscriberNotices } from "../src/status-pages/subscribers/notices";
import { subscriberTokensOf } from "../src/status-pages/subscribers/subscriptions";
import { createPage, firstLinkOf, request, sessionCookieOf, startMailbox } from "./support/page-access";

let mailbox: Awaited<ReturnType<typeof startMailbox>>;

/** Addresses at this domain are refused for good by the SMTP server (a bounce told while sending). */
const NO_SUCH_USER = "gone.test";

beforeAll(async () => {
  mailbox = await startMailbox({ refuses: (address) => address.endsWith(`@${NO_SUCH_USER}`) });
});
afterAll(async () => {
  closeEmailTransports();
  await mailbox?.close();
});

/** The path and query of a mailed link (PUBLIC_URL of test servers is https://vigil.test). */
const pathOf = (link: string) => {
  const url = new URL(link);
  return url.pathname + url.search;
};

/** A request a webhook receiver was sent. */
interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * A webhook endpoint on loopback: it answers the verification handshake by
 * echoing the challenge (unless `echo` is false) and every event with `status`.
 */
async function startReceiver(options: { echo?: boolean; status?: number } = {}) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers as Record<string, string>, body });
      const event = JSON.parse(body) as { type: string; data: { challenge?: string } };
      if (event.type === "subscription.verification") {
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(options.echo === false ? { ok: true } : { challenge: event.data.challenge }));
      }
      res.writeHead(options.status ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let addresses = 0;
const newAddress = (domain = "example.com") => `reader-${++addresses}-${Date.now()}@${domain}`;

describe.each(BACKENDS)("status page subscribers on %s", (backend) => {
  let api: TestApi;
  let workspace: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url } });
    workspace = await api.workspace();
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => request(api.baseUrl, path, { headers });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) => request(api.baseUrl, path, { form, headers });
  const page = (fields: Parameters<typeof createPage>[2]) => createPage(api.db.prisma, workspace.slug, fields);
  const subscribersOf = (pageId: string) => api.db.prisma.statusPageSubscriber.findMany({ where: { pageId } });

  it("shows the form and the feed on the page", async () => {
    const { slug } = await page({ accessType: "public" });
    const res = await get(`/status/${slug}`);
    expect(res.body).toContain(`action="/status/${slug}/subscribe"`);
    expect(res.body).toContain('name="email"');
    expect(res.body).toContain(`href="/status/${slug}/feed.atom"`);
  });

  it("subscribes an address once it opens the mailed link, and unsubscribes it by the link's button", async () => {
    const { id, slug, title } = await page({ accessType: "public" });
    const address = newAddress();
    const answer = await post(`/status/${slug}/subscribe`, { email: address.toUpperCase() });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("Check your email");

    const mail = await eventually(() => mailbox.mailTo(address));
    expect(mail.raw).toContain(`Confirm your subscription to ${title}`);
    const confirmLink = firstLinkOf(mail);
    expect(confirmLink).toMatch(new RegExp(`^https://vigil\\.test/status/${slug}/subscribe/confirm\\?token=`));
    // Only the token's hash is stored; nothing is confirmed before the link is opened.
    const [waiting] = await subscribersOf(id);
    expect(waiting).toMatchObject({ email: address, confirmedAt: null, componentIds: [] });
    expect(waiting!.confirmTokenHash).not.toContain(new URL(confirmLink).searchParams.get("token"));

    const confirmed = await get(pathOf(confirmLink));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain("Subscribed");
    expect((await subscribersOf(id))[0]!.confirmedAt).not.toBeNull();
    // A link works once.
    expect((await get(pathOf(confirmLink))).status).toBe(410);

    const token = unsubscribeTokenOf(waiting!.id);
    const form = await get(`/status/${slug}/unsubscribe?token=${token}`);
    expect(form.status).toBe(200);
    expect(form.body).toContain(address);
    expect(form.body).toMatch(/<form[^>]* action="\/status\/[^"]+\/unsubscribe\?token=/);
    // The page alone (a mail scanner following the link) unsubscribes nobody.
    expect(await subscribersOf(id)).toHaveLength(1);
    const done = await post(`/status/${slug}/unsubscribe?token=${token}`, {});
    expect(done.status).toBe(200);
    expect(done.body).toContain("Unsubscribed");
    expect(await subscribersOf(id)).toHaveLength(0);
  });

  it("unsubscribes by the RFC 8058 one-click POST, answered without a page", async () => {
    const { id, slug } = await page({ accessType: "public" });
    const subscriber = await subscribeAndConfirm(slug, newAddress());
    const token = unsubscribeTokenOf(subscriber);
    const res = await post(`/status/${slug}/unsubscribe?token=${token}`, { "List-Unsubscribe": "One-Click" }, { origin: "https://mail.example.net" });
    expect(res.status).toBe(200);
    expect(res.body).toBe("");
    expect(await subscribersOf(id)).toHaveLength(0);
    expect((await post(`/status/${slug}/unsubscribe?token=${token}`, { "List-Unsubscribe": "One-Click" })).status).toBe(404);
  });

  it("refuses bad input naming the field, a cross-site post, components of another page and a page that takes no subscriptions", async () => {
    const { id, slug } = await page({ accessType: "public" });
    const bad = await post(`/status/${slug}/subscribe`, { email: "not an address" });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain("email: must be an email address");
    const other = await post(`/status/${slug}/subscribe`, { email: newAddress(), components: "0190f0f0-0000-7000-8000-000000000000" });
    expect(other.status).toBe(400);
    expect(other.body).toContain("components: no component 0190f0f0-0000-7000-8000-000000000000 on this page");
    expect((await post(`/status/${slug}/subscribe`, { email: newAddress() }, { origin: "https://evil.example" })).status).toBe(403);
    await api.db.prisma.statusPage.update({ where: { id }, data: { subscriptionsEnabled: false } });
    const off = await post(`/status/${slug}/subscribe`, { email: newAddress() });
    expect(off.status).toBe(403);
    expect((await get(`/status/${slug}`)).body).not.toContain(`action="/status/${slug}/subscribe"`);
    expect(await subscribersOf(id)).toHaveLength(0);
  });

  it("takes chosen components of the page", async () => {
    const { id, slug } = await page({ accessType: "public" });
    const component = await api.db.prisma.statusPageComponent.create({ data: { pageId: id, type: "static", name: "API" } });
    const address = newAddress();
    const res = await request(api.baseUrl, `/status/${slug}/subscribe`, { form: { email: address, components: component.id } });
    expect(res.status).toBe(200);
    expect((await subscribersOf(id))[0]!.componentIds).toEqual([component.id]);
    expect((await get(`/status/${slug}`)).body).toContain(`value="${component.id}"`);
  });

  it(`mails one address at most ${SUBSCRIBERS.confirmationMailsPerAddressPerHour} confirmations an hour`, async () => {
    const { slug } = await page({ accessType: "public" });
    const address = newAddress();
    for (let i = 0; i < SUBSCRIBERS.confirmationMailsPerAddressPerHour; i++) {
      expect((await post(`/status/${slug}/subscribe`, { email: address })).status).toBe(200);
    }
    const refused = await post(`/status/${slug}/subscribe`, { email: address });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    await eventually(() => expect(mailbox.mailsTo(address)).toHaveLength(SUBSCRIBERS.confirmationMailsPerAddressPerHour));
  });

  it("lets a password page's subscribers be its signed-in readers only", async () => {
    const { id, slug } = await page({ accessType: "password", password: "open sesame" });
    expect((await post(`/status/${slug}/subscribe`, { email: newAddress() })).status).toBe(401);
    const cookie = sessionCookieOf(await post(`/status/${slug}/sign-in`, { password: "open sesame" }));
    const address = newAddress();
    expect((await post(`/status/${slug}/subscribe`, { email: address }, { cookie })).status).toBe(200);
    await eventually(() => mailbox.mailTo(address));
    expect(await subscribersOf(id)).toHaveLength(1);
  });

  it("lets an email-domain page's subscribers be addresses of its domains only, answering others alike", async () => {
    const { id, slug } = await page({ accessType: "email-domain", authEmailDomains: ["acme.test"] });
    const outsider = newAddress("elsewhere.test");
    const insider = newAddress("acme.test");
    const refused = await post(`/status/${slug}/subscribe`, { email: outsider });
    const taken = await post(`/status/${slug}/subscribe`, { email: insider });
    expect(refused.status).toBe(200);
    expect(refused.body).toBe(taken.body);
    await eventually(() => mailbox.mailTo(insider));
    expect(mailbox.mailsTo(outsider)).toHaveLength(0);
    expect((await subscribersOf(id)).map((s) => s.email)).toEqual([insider]);
  });

  it("holds a page to the deployment's subscriber limit", async () => {
    const limited = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url }, limits: { subscribersPerPage: 1 } });
    try {
      const ws = await limited.workspace();
      const { slug } = await createPage(limited.db.prisma, ws.slug, { accessType: "public" });
      expect((await request(limited.baseUrl, `/status/${slug}/subscribe`, { form: { email: newAddress() } })).status).toBe(200);
      expect((await request(limited.baseUrl, `/status/${slug}/subscribe`, { form: { email: newAddress() } })).status).toBe(409);
    } finally {
      await limited.close();
    }
  });

  describe("notices", () => {
    let client: ReturnType<TestApi["statusPageClient"]>;
    let pages = 0;
    beforeAll(() => {
      client = api.statusPageClient(workspace.write.key);
    });

    /** A page made through the API, with two static components. */
    const newPage = async () => {
      const statusPage = (await client.createStatusPage({ statusPage: { title: "Notices", slug: `notices-${++pages}-${backend}` } })).statusPage!;
      const component = async (name: string) => (await client.createStatusPageComponent({ component: { pageId: statusPage.id, type: "static", name } })).component!.id;
      return { id: statusPage.id, slug: statusPage.slug ?? "", web: await component("Web"), db: await component("DB") };
    };
    const noticesTo = (address: string) => mailbox.mailsTo(address).filter((mail) => !/^Subject: Confirm your subscription/m.test(mail.raw));
    /** The mail as read: quoted-printable soft breaks and escapes undone. */
    const decoded = (mail: { raw: string }) => mail.raw.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const header = (mail: { raw: string }, name: string) => {
      const head = mail.raw.slice(0, mail.raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
      return new RegExp(`^${name}: (.*)$`, "mi").exec(head)?.[1];
    };

    it("mails confirmed subscribers of the page or of a component the incident names, each with its one-click unsubscribe", async () => {
      const target = await newPage();
      const everything = newAddress();
      const web = newAddress();
      const db = newAddress();
      const waiting = newAddress();
      await subscribeAndConfirm(target.slug, everything);
      await subscribeAndConfirm(target.slug, web, [target.web]);
      await subscribeAndConfirm(target.slug, db, [target.db]);
      expect((await post(`/status/${target.slug}/subscribe`, { email: waiting })).status).toBe(200);

      const incident = (await client.createStatusPageIncident({
        incident: { pageId: target.id, title: "Checkout errors", status: "investigating", message: "We are **looking** into it.", components: [{ componentId: target.web, impact: "partial_outage" }] },
      })).incident!;
      const [mail] = await eventually(() => {
        const mails = noticesTo(web);
        expect(mails).toHaveLength(1);
        return mails;
      });
      await eventually(() => expect(noticesTo(everything)).toHaveLength(1));
      expect(header(mail!, "Subject")).toBe("[Notices] Incident: Checkout errors");
      const text = decoded(mail!);
      expect(text).toContain("We are **looking** into it.");
      expect(text).toContain(`https://vigil.test/status/${target.slug}/incidents/${incident.id}`);
      const unsubscribe = /^<(.*)>$/.exec(header(mail!, "List-Unsubscribe") ?? "")?.[1];
      expect(unsubscribe).toMatch(new RegExp(`^https://vigil\\.test/status/${target.slug}/unsubscribe\\?token=`));
      expect(header(mail!, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

      // A mail client's one-click POST to the header's address ends the subscription.
      const oneClick = await post(pathOf(unsubscribe!), { "List-Unsubscribe": "One-Click" });
      expect(oneClick.status).toBe(200);
      expect((await subscribersOf(target.id)).map((s) => s.email).sort()).toEqual([db, everything, waiting].sort());

      await client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "resolved", message: "Fixed." });
      await eventually(() => expect(noticesTo(everything)).toHaveLength(2));
      expect(header(noticesTo(everything)[1]!, "Subject")).toBe("[Notices] Resolved: Checkout errors");
      // Settled: every delivery of the page's notices is delivered, none is left to send.
      await eventually(async () => expect(await api.db.prisma.statusPageNoticeDelivery.count({ where: { outcome: "pending" } })).toBe(0));
      expect(noticesTo(web)).toHaveLength(1);
      expect(noticesTo(db)).toHaveLength(0);
      expect(noticesTo(waiting)).toHaveLength(0);
    });

    it("tells of maintenance scheduled, started and completed, for the components it names, in the page's language", async () => {
      const target = await newPage();
      const web = newAddress();
      const db = newAddress();
      await subscribeAndConfirm(target.slug, web, [target.web]);
      await subscribeAndConfirm(target.slug, db, [target.db]);
      await client.updateStatusPage({ id: target.id, statusPage: { language: "de" } });
      // In the future of the pipelines' own sweeps: only the sweeps below, at their times, see it start and end.
      const startsAt = new Date(Date.now() + 30 * 86_400_000);
      const endsAt = new Date(startsAt.getTime() + 3_600_000);
      const windows = api.maintenanceClient(workspace.write.key);
      await windows.createMaintenanceWindow({
        maintenance: { title: "Datenbank-Upgrade", message: "Wir **aktualisieren**.", startsAt: timestampFromDate(startsAt), endsAt: timestampFromDate(endsAt), pageComponentIds: [target.web] },
      });
      await eventually(() => expect(noticesTo(web)).toHaveLength(1));
      expect(header(noticesTo(web)[0]!, "Subject")).toBe("[Notices] Wartung geplant: Datenbank-Upgrade");
      expect(header(noticesTo(web)[0]!, "Content-Language")).toBe("de");
      expect(decoded(noticesTo(web)[0]!)).toContain("Wir **aktualisieren**.");

      await api.pipeline.maintenance.sweep(new Date(startsAt.getTime() + 1_000));
      await eventually(() => expect(noticesTo(web)).toHaveLength(2));
      expect(header(noticesTo(web)[1]!, "Subject")).toBe("[Notices] Wartung begonnen: Datenbank-Upgrade");
      await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() + 1_000));
      await eventually(() => expect(noticesTo(web)).toHaveLength(3));
      expect(header(noticesTo(web)[2]!, "Subject")).toBe("[Notices] Wartung abgeschlossen: Datenbank-Upgrade");
      await eventually(async () => expect(await api.db.prisma.statusPageNoticeDelivery.count({ where: { outcome: "pending" } })).toBe(0));
      // The window names the web component only: its subscribers are told, the database's are not.
      expect(noticesTo(db)).toHaveLength(0);
    });

    it("tells nothing while the page takes no subscriptions", async () => {
      const target = await newPage();
      const address = newAddress();
      await subscribeAndConfirm(target.slug, address);
      await api.db.prisma.statusPage.update({ where: { id: target.id }, data: { subscriptionsEnabled: false } });
      await client.createStatusPageIncident({ incident: { pageId: target.id, title: "Quiet", status: "investigating", message: "m" } });
      await api.db.prisma.statusPage.update({ where: { id: target.id }, data: { subscriptionsEnabled: true } });
      await client.createStatusPageIncident({ incident: { pageId: target.id, title: "Told", status: "investigating", message: "m" } });
      await eventually(() => expect(noticesTo(address)).toHaveLength(1));
      expect(header(noticesTo(address)[0]!, "Subject")).toBe("[Notices] Incident: Told");
      expect(await api.db.prisma.statusPageNotice.count({ where: { pageId: target.id } })).toBe(1);
    });

    it("ends the subscription of a recipient the SMTP server refuses for good (5xx)", async () => {
      const target = await newPage();
      const kept = newAddress();
      await subscribeAndConfirm(target.slug, kept);
      // Confirmed directly: its confirmation mail is refused too.
      const gone = newAddress(NO_SUCH_USER);
      expect((await post(`/status/${target.slug}/subscribe`, { email: gone })).status).toBe(200);
      await eventually(async () => expect((await subscribersOf(target.id)).length).toBe(2));
      await api.db.prisma.statusPageSubscriber.updateMany({ where: { email: gone }, data: { confirmedAt: new Date(), confirmTokenHash: null } });

      await client.createStatusPageIncident({ incident: { pageId: target.id, title: "Bounce", status: "investigating", message: "m" } });
      await eventually(async () => expect((await subscribersOf(target.id)).map((s) => s.email)).toEqual([kept]));
      expect(noticesTo(kept)).toHaveLength(1);
    });
  });

  it("tries a notice again after a temporary refusal (SMTP 4xx), and records it delivered", async () => {
    let deferring = true;
    const greylisting = await startMailbox({ defers: (address) => deferring && address.startsWith("later-") });
    const retrying = await startTestApi(backend, { providerEnv: { SMTP_URL: greylisting.url }, limits: { retryDelaysMs: Array.from({ length: 20 }, () => 200) } });
    try {
      const ws = await retrying.workspace();
      const target = await createPage(retrying.db.prisma, ws.slug, { accessType: "public" });
      const address = `later-${newAddress()}`;
      // Confirmed as the link would confirm it: the greylisting server would defer the confirmation mail too.
      await retrying.db.prisma.statusPageSubscriber.create({ data: { pageId: target.id, kind: "email", email: address, unsubscribeTokenHash: `later-${Date.now()}`, confirmedAt: new Date() } });
      await retrying.statusPageClient(ws.write.key).createStatusPageIncident({ incident: { pageId: target.id, title: "Greylisted", status: "investigating", message: "m" } });
      const first = await eventually(async () => {
        const [delivery] = await retrying.db.prisma.statusPageNoticeDelivery.findMany();
        expect(delivery?.outcome).toBe("pending");
        expect(delivery!.attempts).toBeGreaterThanOrEqual(1);
        return delivery!;
      });
      expect(first.error).toContain("451");
      deferring = false;
      const delivered = await eventually(async () => {
        const row = await retrying.db.prisma.statusPageNoticeDelivery.findUniqueOrThrow({ where: { id: first.id } });
        expect(row.outcome).toBe("delivered");
        return row;
      });
      expect(delivered.attempts).toBeGreaterThan(first.attempts);
      expect(greylisting.mailsTo(address)).toHaveLength(1);
    } finally {
      await retrying.close();
      await greylisting.close();
    }
  });

  it("sends, when swept, a delivery that a crash left pending and unqueued", async () => {
    const target = await page({ accessType: "public" });
    const address = newAddress();
    const subscriber = await api.db.prisma.statusPageSubscriber.create({ data: { pageId: target.id, kind: "email", email: address, unsubscribeTokenHash: `swept-${Date.now()}`, confirmedAt: new Date() } });
    // Written with the incident they tell of, then the process stopped before queueing: no job holds the delivery.
    const notice = await api.db.prisma.statusPageNotice.create({
      data: { pageId: target.id, kind: "incident.created", subjectId: "i1", title: "Left behind", message: "m", status: "investigating", link: "https://vigil.test/", componentIds: [] },
    });
    const delivery = await api.db.prisma.statusPageNoticeDelivery.create({ data: { noticeId: notice.id, subscriberId: subscriber.id } });
    // Another control plane's sweep, on a clock 11 minutes on; the server's own worker sends what it queues.
    const sweeper = new SubscriberNotices(api.pipeline.redis, api.db.prisma, createLogger("silent", "test"), {
      prefix: api.redisPrefix,
      settings: api.notifications.settings,
      tokens: subscriberTokensOf(api.notifications.box),
      secrets: api.notifications.box,
      concurrency: 1,
      retryDelaysMs: [1_000],
    });
    try {
      expect(await sweeper.sweep(new Date())).toBe(0);
      expect(await sweeper.sweep(new Date(Date.now() + 11 * 60_000))).toBe(1);
      await eventually(async () => expect(await api.db.prisma.statusPageNoticeDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ outcome: "delivered" }));
      expect(mailbox.mailsTo(address)).toHaveLength(1);
    } finally {
      await sweeper.close();
    }
  });

  describe("webhooks", () => {
    let client: ReturnType<TestApi["statusPageClient"]>;
    let receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
    beforeAll(() => {
      client = api.statusPageClient(workspace.write.key);
    });
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      receivers = [];
    });
    const receiver = async (options?: Parameters<typeof startReceiver>[0]) => {
      const started = await startReceiver(options);
      receivers.push(started);
      return started;
    };
    const subscribeWebhook = (slug: string, url: string) => post(`/status/${slug}/subscribe`, { webhook: url }, { accept: "application/json" });

    it("subscribes an endpoint that echoes the signed challenge, shows its secret once, and sends it events it verifies with standardwebhooks", async () => {
      const target = await page({ accessType: "public" });
      const hook = await receiver();
      const res = await subscribeWebhook(target.slug, hook.url);
      expect(res.status).toBe(201);
      const { secret, subscriberId, unsubscribeUrl } = JSON.parse(res.body) as { secret: string; subscriberId: string; unsubscribeUrl: string };
      expect(secret).toMatch(/^whsec_/);
      const signer = new Webhook(secret);
      const verification = signer.verify(hook.received[0]!.body, hook.received[0]!.headers) as { type: string; data: { challenge: string; page: { id: string } } };
      expect(verification).toMatchObject({ type: "subscription.verification", data: { page: { id: target.id } } });
      const [row] = await subscribersOf(target.id);
      expect(row).toMatchObject({ id: subscriberId, kind: "webhook", webhookUrl: hook.url });
      // Sealed: the secret is not stored as it was shown.
      expect(row!.webhookSecret).not.toContain(secret.slice(6));

      const incident = (await client.createStatusPageIncident({ incident: { pageId: target.id, title: "Webhook news", status: "investigating", message: "Looking." } })).incident!;
      await eventually(() => expect(hook.received).toHaveLength(2));
      const event = signer.verify(hook.received[1]!.body, hook.received[1]!.headers) as { type: string; data: Record<string, unknown> };
      expect(event).toMatchObject({ type: "incident.created", version: 1, data: { id: incident.id, title: "Webhook news", status: "investigating", message: "Looking.", unsubscribeUrl } });
      expect(hook.received[1]!.headers["webhook-id"]).toBe((event as unknown as { id: string }).id);

      expect((await post(pathOf(unsubscribeUrl), { "List-Unsubscribe": "One-Click" })).status).toBe(200);
      expect(await subscribersOf(target.id)).toHaveLength(0);
    });

    it("refuses an endpoint that does not echo the challenge, and one the SSRF guard refuses", async () => {
      const target = await page({ accessType: "public" });
      const silent = await receiver({ echo: false });
      const res = await subscribeWebhook(target.slug, silent.url);
      expect(res.status).toBe(400);
      expect(res.body).toContain("webhook: did not answer the verification");
      expect(await subscribersOf(target.id)).toHaveLength(0);

      const guarded = await startTestApi(backend, { providerEnv: { SMTP_URL: mailbox.url, ALLOW_PRIVATE_TARGETS: "false" } });
      try {
        const ws = await guarded.workspace();
        const other = await createPage(guarded.db.prisma, ws.slug, { accessType: "public" });
        const hook = await receiver();
        const refused = await request(guarded.baseUrl, `/status/${other.slug}/subscribe`, { form: { webhook: hook.url } });
        expect(refused.status).toBe(400);
        expect(hook.received).toHaveLength(0);
        expect(await guarded.db.prisma.statusPageSubscriber.count()).toBe(0);
      } finally {
        await guarded.close();
      }
    });

    it("ends the subscription of an endpoint answering 410 Gone", async () => {
      const target = await page({ accessType: "public" });
      const gone = await receiver({ status: 410 });
      expect((await subscribeWebhook(target.slug, gone.url)).status).toBe(201);
      await client.createStatusPageIncident({ incident: { pageId: target.id, title: "Gone", status: "investigating", message: "m" } });
      await eventually(async () => expect(await subscribersOf(target.id)).toHaveLength(0));
      expect(gone.received).toHaveLength(2);
    });

    it("lets only a signed-in reader subscribe a webhook to a protected page", async () => {
      const target = await page({ accessType: "password", password: "open sesame" });
      const hook = await receiver();
      expect((await subscribeWebhook(target.slug, hook.url)).status).toBe(401);
      expect(hook.received).toHaveLength(0);
      const cookie = sessionCookieOf(await post(`/status/${target.slug}/sign-in`, { password: "open sesame" }));
      expect((await post(`/status/${target.slug}/subscribe`, { webhook: hook.url }, { cookie })).status).toBe(201);
    });
  });

  describe("owners", () => {
    it("list a page's subscribers by page, never their secrets, remove one, and turn subscriptions off and on", async () => {
      const client = api.statusPageClient(workspace.write.key);
      const reader = api.statusPageClient(workspace.read.key);
      const created = (await client.createStatusPage({ statusPage: { title: "Owned", slug: `owned-${backend}` } })).statusPage!;
      expect(created.subscriptionsEnabled).toBe(true);
      const first = newAddress();
      const second = newAddress();
      await subscribeAndConfirm(created.slug ?? "", first);
      expect((await post(`/status/${created.slug}/subscribe`, { email: second })).status).toBe(200);

      const all = await reader.listStatusPageSubscribers({ pageId: created.id });
      expect(all.totalSize).toBe(2);
      expect(all.subscribers.map((s) => ({ email: s.email, kind: s.kind, confirmed: s.confirmed }))).toEqual([
        { email: first, kind: "email", confirmed: true },
        { email: second, kind: "email", confirmed: false },
      ]);
      const paged = await reader.listStatusPageSubscribers({ pageId: created.id, limit: 1, offset: 1 });
      expect(paged.subscribers.map((s) => s.email)).toEqual([second]);
      await expect(reader.listStatusPageSubscribers({ pageId: created.id, limit: 101 })).rejects.toThrow(/limit/);
      await expect(reader.deleteStatusPageSubscriber({ id: all.subscribers[0]!.id })).rejects.toThrow(/permission|scope|write/i);

      expect((await client.deleteStatusPageSubscriber({ id: all.subscribers[0]!.id })).success).toBe(true);
      await expect(client.deleteStatusPageSubscriber({ id: all.subscribers[0]!.id })).rejects.toThrow(/not found/);
      expect((await reader.listStatusPageSubscribers({ pageId: created.id })).subscribers.map((s) => s.email)).toEqual([second]);

      const off = (await client.updateStatusPage({ id: created.id, statusPage: { subscriptionsEnabled: false } })).statusPage!;
      expect(off.subscriptionsEnabled).toBe(false);
      expect((await post(`/status/${created.slug}/subscribe`, { email: newAddress() })).status).toBe(403);
      // A mask naming the field without a value sets it back to its default, on.
      const on = (await client.updateStatusPage({ id: created.id, statusPage: {}, updateMask: { paths: ["subscriptions_enabled"] } })).statusPage!;
      expect(on.subscriptionsEnabled).toBe(true);
    });

    it("cannot see or remove another workspace's subscribers", async () => {
      const other = await api.workspace();
      const mine = await page({ accessType: "public" });
      const row = await api.db.prisma.statusPageSubscriber.create({ data: { pageId: mine.id, kind: "email", email: newAddress(), unsubscribeTokenHash: `x-${Date.now()}` } });
      const stranger = api.statusPageClient(other.write.key);
      await expect(stranger.listStatusPageSubscribers({ pageId: mine.id })).rejects.toThrow(/not found/);
      await expect(stranger.deleteStatusPageSubscriber({ id: row.id })).rejects.toThrow(/not found/);
      expect(await subscribersOf(mine.id)).toHaveLength(1);
    });
  });

  /** Subscribes an address and opens its confirmation link; the subscriber's id. */
  async function subscribeAndConfirm(slug: string, address: string, components: string[] = []): Promise<string> {
    const form = new URLSearchParams({ email: address });
    for (const id of components) form.append("components", id);
    const res = await request(api.baseUrl, `/status/${slug}/subscribe`, { form });
    expect(res.status).toBe(200);
    const link = firstLinkOf(await eventually(() => mailbox.mailTo(address)));
    expect((await get(pathOf(link))).status).toBe(200);
    const row = await api.db.prisma.statusPageSubscriber.findFirstOrThrow({ where: { email: address } });
    return row.id;
  }

  /** The token of a subscriber's unsubscribe links, as its mails carry it. */
  function unsubscribeTokenOf(subscriberId: string): string {
    return subscriberTokensOf(api.notifications.box).unsubscribeToken(subscriberId);
  }
});
