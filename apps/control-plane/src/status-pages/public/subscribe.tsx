import type { ServerResponse } from "node:http";
import type FindMyWay from "find-my-way";
import type { HTTPVersion } from "find-my-way";
import type { Prisma, PrismaClient } from "@vigil/db";
import { DEFAULT_PAGE_LANGUAGE, SUBSCRIBERS, ValidationError, parseSubscription } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { newSigningSecret, type ProviderSettings } from "@vigil/notifications";
import { readBody } from "../../http/body";
import type { Request, Response } from "../../http/json";
import type { AttemptLimiter } from "../../limits/attempt-limiter";
import { pageUrl, type PageHosts, type PageLocation } from "./addresses";
import { notice, sendPage, type PlainPage } from "./forms";
import type { PageSessions } from "./sessions";
import type { Messages } from "./i18n/shape";
import { wordsFor } from "./language";
import type { Words } from "./words";
import { sendConfirmationMail } from "../subscribers/mail";
import type { SubscriberRepository } from "../subscribers/repository";
import type { SubscriberTokens } from "../subscribers/tokens";
import { verifyWebhook } from "../subscribers/webhooks";
import type { SecretBox } from "../../notifications/secrets";

export interface SubscribeDeps {
  prisma: PrismaClient;
  subscribers: SubscriberRepository;
  tokens: SubscriberTokens;
  /** Seals webhook subscribers' signing secrets. */
  secrets: SecretBox;
  sessions: PageSessions;
  hosts: PageHosts;
  /** Confirmation mails per address and hour (SUBSCRIBERS.confirmationMailsPerAddressPerHour). */
  confirmations: AttemptLimiter;
  /** Subscribers one page may have (STATUS_PAGE_SUBSCRIBERS_MAX). */
  maxPerPage: number;
  settings: ProviderSettings;
  logger: Logger;
  clock?: () => Date;
}

type StatusPage = Prisma.StatusPageModel;
type Params = Record<string, string | undefined>;
type Lookup = (req: Request, params: Params) => Promise<StatusPage | null>;

/** The notices of the subscription flow, by their key (subscribe.* of the pages' words; a plural form by its stem). */
type SubscribeKey = keyof Messages["subscribe"] extends infer K ? (K extends `${infer Stem}_${"one" | "other"}` ? Stem : K & string) : never;

/** The form's field names (the wire names). */
const FIELDS = { email: "email", webhook: "webhook", components: "components" } as const;

/** The body of an RFC 8058 one-click unsubscribe POST. */
const ONE_CLICK = "List-Unsubscribe=One-Click";

/** Where a page's subscription links point: under its own address (its custom domain, else PUBLIC_URL/status/<slug>). */
export const subscriptionLink = (page: PageLocation, publicUrl: string, path: "subscribe/confirm" | "unsubscribe", token: string) =>
  `${pageUrl(page, publicUrl).replace(/\/$/, "")}/${path}?token=${encodeURIComponent(token)}`;

/**
 * Subscriptions of visitors, at `/status/<slug>/…` and at `/…` of a page's
 * custom domain: POST `subscribe` (the page's form), GET
 * `subscribe/confirm?token=` (the mailed link), GET `unsubscribe?token=` (a
 * page with a button) and POST `unsubscribe?token=` (the button, or a mail
 * client's RFC 8058 one-click POST, answered without a page).
 */
export function registerSubscribeRoutes(router: FindMyWay.Instance<HTTPVersion.V1>, deps: SubscribeDeps): void {
  const { prisma, hosts, logger, settings, subscribers } = deps;
  const now = deps.clock ?? (() => new Date());

  const bySlug: Lookup = (_req, params) => prisma.statusPage.findFirst({ where: { slug: params.slug ?? "", published: true } });
  const byDomain: Lookup = async (req) => {
    const customDomain = hosts.customDomainOf(req);
    return customDomain ? prisma.statusPage.findFirst({ where: { customDomain, published: true } }) : null;
  };

  /** A notice in the visitor's language: a heading and a text (a key of subscribe.*, or a rule's own words), with the way back to the page. */
  const answer = (req: Request, res: Response, page: StatusPage, status: number, heading: SubscribeKey, text: string | [SubscribeKey, Record<string, string | number>?], headers: Record<string, string | number> = {}) => {
    const w = wordsFor(req, page.language);
    const words = typeof text === "string" ? text : w.t(`subscribe.${text[0]}`, text[1]);
    sendPage(res, status, notice(w.t(`subscribe.${heading}`), words, { href: hosts.pagePath(req, page), text: w.t("subscribe.back") }, w.lang), headers);
  };

  async function subscribe(req: Request, res: Response, page: StatusPage): Promise<void> {
    if (!hosts.isSameOriginPost(req, page)) {
      logger.warn({ pageId: page.id, origin: req.headers.origin }, "status page subscribe: cross-site post refused");
      return answer(req, res, page, 403, "refused", wordsFor(req, page.language).t("signIn.crossSite"));
    }
    if (!page.subscriptionsEnabled) return answer(req, res, page, 403, "noSubscriptions", ["takesNone"]);
    // A password page lets in only its readers; an email-domain page, addresses of its domains (below).
    if (page.accessType === "password" && !deps.sessions.holds(req, page)) {
      return answer(req, res, page, 401, "signInFirst", ["signInToSubscribe"]);
    }
    const body = await readBody(req);
    if (body === null) return answer(req, res, page, 413, "tooLarge", ["largerThanAny"]);
    const form = new URLSearchParams(body.toString("utf8"));

    let subscription;
    try {
      subscription = parseSubscription({ email: form.get(FIELDS.email) ?? "", webhook: form.get(FIELDS.webhook) ?? "", components: form.getAll(FIELDS.components) });
    } catch (error) {
      if (error instanceof ValidationError) return answer(req, res, page, 400, "notSubscribed", error.message);
      throw error;
    }
    const unknown = await unknownComponents(page.id, subscription.components);
    if (unknown.length > 0) return answer(req, res, page, 400, "notSubscribed", `components: no component ${unknown.join(", ")} on this page`);
    if (subscription.kind === "webhook") return subscribeWebhook(req, res, page, subscription.url, subscription.components);
    if (!settings.smtpUrl) return answer(req, res, page, 503, "mailUnavailable", wordsFor(req, page.language).t("signIn.noSmtp"));

    // Counted before anything is written or sent, for every request naming the address: a form cannot flood an inbox.
    const wait = await deps.confirmations.reserve(subscription.address);
    if (wait > 0) {
      return answer(req, res, page, 429, "tooMany", ["tooManyMails", { count: Math.ceil(wait / 60) }], { "retry-after": wait });
    }
    const sent = (): void => answer(req, res, page, 200, "checkMail", ["confirmOnItsWay", { hours: SUBSCRIBERS.confirmLinkHours }]);
    // Alike for every address: the answer does not tell which domains may read the page, nor who is subscribed.
    if (page.accessType === "email-domain" && !page.authEmailDomains.includes(subscription.domain)) return sent();

    const outcome = await subscribers.subscribeEmail(page.id, subscription.address, subscription.components, now(), deps.maxPerPage);
    if (outcome.kind === "full") return answer(req, res, page, 409, "full", ["fullText"]);
    sent();
    if (outcome.kind === "subscribed") return;
    const link = subscriptionLink(page, settings.publicUrl, "subscribe/confirm", outcome.confirmToken);
    sendConfirmationMail(settings, wordsFor(req, page.language), { to: subscription.address, pageTitle: page.title, link }).catch((error: unknown) =>
      logger.error({ err: error, pageId: page.id, subscriber: outcome.subscriberId }, "status page subscribe: the confirmation email could not be sent"),
    );
  }

  /**
   * A webhook is subscribed once it answers the verification handshake
   * (webhooks.ts), at once: the answer shows its signing secret, this once.
   * On a protected page only a signed-in reader subscribes one.
   */
  async function subscribeWebhook(req: Request, res: Response, page: StatusPage, url: string, components: string[]): Promise<void> {
    if (page.accessType !== "public" && !deps.sessions.holds(req, page)) {
      return answer(req, res, page, 401, "signInFirst", ["signInForWebhook"]);
    }
    const wait = await deps.confirmations.reserve(`webhook:${url}`);
    if (wait > 0) return answer(req, res, page, 429, "tooMany", ["tooManyWebhook", { count: Math.ceil(wait / 60) }], { "retry-after": wait });
    const secret = newSigningSecret();
    const refusal = await verifyWebhook(url, secret, { id: page.id, title: page.title, url: pageUrl(page, settings.publicUrl) }, settings);
    if (refusal) return answer(req, res, page, 400, "notSubscribed", `webhook: did not answer the verification: ${refusal}`);
    const id = await subscribers.subscribeWebhook(page.id, url, components, deps.secrets.seal(secret), now(), deps.maxPerPage);
    if (id === null) return answer(req, res, page, 409, "full", ["fullText"]);
    logger.info({ pageId: page.id, subscriber: id }, "status page webhook subscribed");
    const unsubscribeUrl = subscriptionLink(page, settings.publicUrl, "unsubscribe", deps.tokens.unsubscribeToken(id));
    if (String(req.headers.accept ?? "").includes("application/json")) {
      const body = JSON.stringify({ subscriberId: id, secret, unsubscribeUrl });
      return void (res as ServerResponse).writeHead(201, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(body) }).end(body);
    }
    sendPage(res, 201, webhookSubscribed(wordsFor(req, page.language), page.title, secret, unsubscribeUrl));
  }

  async function unknownComponents(pageId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = await prisma.statusPageComponent.findMany({ where: { pageId, id: { in: [...ids] } }, select: { id: true } });
    const known = new Set(found.map((c) => c.id));
    return ids.filter((id) => !known.has(id));
  }

  async function confirm(req: Request, res: Response, page: StatusPage): Promise<void> {
    if (!page.subscriptionsEnabled) return answer(req, res, page, 403, "noSubscriptions", ["takesNone"]);
    const confirmed = await subscribers.confirm(page.id, tokenOf(req), now());
    if (!confirmed) {
      return answer(req, res, page, 410, "linkNotValid", ["confirmLinkInvalid", { hours: SUBSCRIBERS.confirmLinkHours }]);
    }
    logger.info({ pageId: page.id, subscriber: confirmed.id }, "status page subscription confirmed");
    answer(req, res, page, 200, "subscribed", ["subscribedText", { page: page.title }]);
  }

  async function unsubscribePage(req: Request, res: Response, page: StatusPage): Promise<void> {
    const token = tokenOf(req);
    const subscriber = await subscribers.findByUnsubscribeToken(page.id, token);
    if (!subscriber) return answer(req, res, page, 404, "notSubscribed", ["noSuchSubscription"]);
    sendPage(res, 200, unsubscribeForm(wordsFor(req, page.language), page.title, subscriber.email ?? subscriber.webhookUrl ?? "", req.url ?? ""));
  }

  async function unsubscribe(req: Request, res: Response, page: StatusPage): Promise<void> {
    // No Origin check: the token is what allows it, and RFC 8058 posts come from mail providers, not from the page.
    const body = await readBody(req);
    const oneClick = body !== null && body.toString("utf8").trim() === ONE_CLICK;
    const subscriber = await subscribers.findByUnsubscribeToken(page.id, tokenOf(req));
    const removed = subscriber !== null && (await subscribers.remove(page.id, subscriber.id));
    if (removed) logger.info({ pageId: page.id, subscriber: subscriber.id, oneClick }, "status page subscriber unsubscribed");
    if (oneClick) return void (res as ServerResponse).writeHead(removed ? 200 : 404, { "cache-control": "no-store", "content-length": 0 }).end();
    if (!removed) return answer(req, res, page, 404, "notSubscribed", ["noSuchSubscription"]);
    answer(req, res, page, 200, "unsubscribed", ["unsubscribedText", { page: page.title }]);
  }

  const on = (method: "GET" | "POST", path: string, lookup: Lookup, handler: (req: Request, res: Response, page: StatusPage) => Promise<void>) =>
    router.on(method, path, (req, res, params) => {
      (async () => {
        const page = await lookup(req, params);
        const w = wordsFor(req, page?.language ?? DEFAULT_PAGE_LANGUAGE);
        if (!page) return sendPage(res, 404, notice(w.t("notFound.title"), w.t("notFound.text"), { href: "/", text: w.t("notFound.home") }, w.lang));
        await handler(req, res, page);
      })().catch((error: unknown) => {
        logger.error({ err: error, method, path }, "status page subscription failed");
        const w = wordsFor(req, DEFAULT_PAGE_LANGUAGE);
        if (!res.headersSent) sendPage(res, 500, notice(w.t("signIn.failed"), w.t("signIn.tryAgain"), undefined, w.lang));
      });
    });

  // A GET of the form's address (a reload after posting) goes back to the page and its form.
  const backToPage = async (req: Request, res: Response, page: StatusPage) =>
    void (res as ServerResponse).writeHead(303, { location: hosts.pagePath(req, page), "cache-control": "no-store" }).end();

  for (const [prefix, lookup] of [["/status/:slug", bySlug], ["", byDomain]] as const) {
    on("POST", `${prefix}/subscribe`, lookup, subscribe);
    on("GET", `${prefix}/subscribe`, lookup, backToPage);
    on("GET", `${prefix}/subscribe/confirm`, lookup, confirm);
    on("GET", `${prefix}/unsubscribe`, lookup, unsubscribePage);
    on("POST", `${prefix}/unsubscribe`, lookup, unsubscribe);
  }
}

/** The `token` of a link's query. */
const tokenOf = (req: Request): string => new URL(req.url ?? "/", "http://x").searchParams.get("token") ?? "";

/** The answer to a webhook's subscription: its signing secret, shown this once. */
function webhookSubscribed(w: Words, pageTitle: string, secret: string, unsubscribeUrl: string): PlainPage {
  return {
    lang: w.lang,
    title: w.t("subscribe.webhookSubscribed"),
    body: (
      <>
        <h1>{w.t("subscribe.webhookSubscribed")}</h1>
        <p>{w.t("subscribe.webhookText", { page: pageTitle })}</p>
        <p>
          <code>{secret}</code>
        </p>
        <p>{w.t("subscribe.webhookUnsubscribe", { url: unsubscribeUrl })}</p>
      </>
    ),
  };
}

/** The page a mailed unsubscribe link opens: a button, so that a mail scanner following links unsubscribes nobody. */
function unsubscribeForm(w: Words, pageTitle: string, who: string, action: string): PlainPage {
  return {
    lang: w.lang,
    title: w.t("subscribe.unsubscribe"),
    body: (
      <>
        <h1>{w.t("subscribe.unsubscribe")}</h1>
        <p>{w.t("subscribe.stopTelling", { who, page: pageTitle })}</p>
        <form method="post" action={action}>
          <button type="submit">{w.t("subscribe.unsubscribe")}</button>
        </form>
      </>
    ),
  };
}
