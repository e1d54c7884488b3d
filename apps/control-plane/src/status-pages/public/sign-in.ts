import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type FindMyWay from "find-my-way";
import type { HTTPVersion } from "find-my-way";
import type { Prisma, PrismaClient } from "@vigil/db";
import { DEFAULT_PAGE_LANGUAGE, PAGE_ACCESS, ValidationError, emailDomainOf, parseSignInEmail } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import type { ProviderSettings } from "@vigil/notifications";
import { readBody } from "../../http/body";
import type { Request, Response } from "../../http/json";
import type { AttemptLimiter } from "../../limits/attempt-limiter";
import { clientAddress } from "../../limits/request-rates";
import { verifyPassword } from "../../auth/password";
import type { PageHosts } from "./addresses";
import { FIELDS, notice, sendPage, signInForm } from "./forms";
import type { PageSessions } from "./sessions";
import { sendSignInMail } from "./sign-in-mail";
import type { MessageKey } from "./i18n/shape";
import { wordsFor } from "./language";
import type { Words } from "./words";

export interface SignInDeps {
  prisma: PrismaClient;
  sessions: PageSessions;
  hosts: PageHosts;
  /** Sign-in attempts per client address and page (PAGE_ACCESS). */
  attempts: AttemptLimiter;
  settings: ProviderSettings;
  logger: Logger;
}

type StatusPage = Prisma.StatusPageModel;
type Params = Record<string, string | undefined>;
type Lookup = (req: Request, params: Params) => Promise<StatusPage | null>;

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Sign-in to protected status pages, at `/status/<slug>/sign-in` and at
 * `/sign-in` of a page's custom domain: POST takes the form (a password, or
 * an address to email a link to), GET `…/sign-in/<token>` opens an emailed
 * link. Both set the session cookie that PageAccessControl reads.
 */
export function registerSignInRoutes(router: FindMyWay.Instance<HTTPVersion.V1>, deps: SignInDeps): void {
  const { prisma, settings, logger, sessions, attempts, hosts } = deps;

  const bySlug: Lookup = (_req, params) => prisma.statusPage.findFirst({ where: { slug: params.slug ?? "", published: true } });
  const byDomain: Lookup = async (req) => {
    const customDomain = hosts.customDomainOf(req);
    return customDomain ? prisma.statusPage.findFirst({ where: { customDomain, published: true } }) : null;
  };

  const signedIn = (req: Request, res: Response, page: StatusPage, next: string | null) =>
    redirect(res, hosts.returnPath(req, page, next), { "set-cookie": sessions.open(page, { secure: hosts.isHttps(req) }) });

  /** The view (history, an incident's page) a sign-in returns to, carried by the form and the mailed link; "" for the page itself. */
  const viewAsked = (req: Request, page: StatusPage, next: string | null) => {
    const returnTo = hosts.returnPath(req, page, next);
    return returnTo === hosts.pagePath(req, page) ? "" : returnTo;
  };

  const showForm = (req: Request, res: Response, page: StatusPage, status: number, message = "", next: string | null = null) => {
    sendPage(res, status, signInForm(wordsFor(req, page.language), page.accessType as "password" | "email-domain", hosts.signInPath(req, page), message, viewAsked(req, page, next)));
  };

  async function post(req: Request, res: Response, page: StatusPage): Promise<void> {
    const w = wordsFor(req, page.language);
    if (!hosts.isSameOriginPost(req, page)) {
      logger.warn({ pageId: page.id, origin: req.headers.origin }, "status page sign-in: cross-site post refused");
      return sendPage(res, 403, notice(w.t("signIn.refused"), w.t("signIn.crossSite"), { href: hosts.pagePath(req, page), text: w.t("signIn.toPage") }, w.lang));
    }
    if (page.accessType !== "password" && page.accessType !== "email-domain") {
      return redirect(res, hosts.pagePath(req, page));
    }
    // Counted before the form is read and the password verified: attempts sent at once must not all pass the check first.
    const attempt = `${clientAddress(req)}|${page.id}`;
    const wait = await attempts.reserve(attempt);
    if (wait > 0) {
      const slowDown = notice(w.t("signIn.tooMany"), w.t("signIn.tryAgainIn", { count: wait }), { href: hosts.pagePath(req, page), text: w.t("signIn.backToForm") }, w.lang);
      return sendPage(res, 429, slowDown, { "retry-after": wait });
    }
    const form = await readForm(req);
    if (form === null) return showForm(req, res, page, 413, w.t("signIn.tooLarge"));
    const next = form.get(FIELDS.next);

    if (page.accessType === "password") {
      const password = form.get(FIELDS.password) ?? "";
      if (page.passwordHash && password !== "" && (await verifyPassword(password, page.passwordHash))) {
        await attempts.giveBack(attempt);
        return signedIn(req, res, page, next);
      }
      return showForm(req, res, page, 401, w.t("signIn.wrongPassword"), next);
    }

    let email: { address: string; domain: string };
    try {
      email = parseSignInEmail(form.get(FIELDS.email) ?? "");
    } catch (error) {
      if (error instanceof ValidationError) return showForm(req, res, page, 400, error.message, next);
      throw error;
    }
    if (!settings.smtpUrl) {
      const unavailable = notice(w.t("signIn.mailUnavailable"), w.t("signIn.noSmtp"), { href: hosts.pagePath(req, page), text: w.t("signIn.back") }, w.lang);
      return sendPage(res, 503, unavailable);
    }
    // Answered before the link is made and sent, and alike for every address: neither the
    // answer nor its timing tells which domains may read the page.
    const sent = notice(
      w.t("signIn.checkMail"),
      w.t("signIn.linkOnItsWay", { minutes: PAGE_ACCESS.signInLinkMinutes }),
      { href: hosts.pagePath(req, page), text: w.t("signIn.anotherLink") },
      w.lang,
    );
    sendPage(res, 200, sent);
    if (!page.authEmailDomains.includes(email.domain)) return;
    const view = viewAsked(req, page, next);
    const linkEnd = view && `?${FIELDS.next}=${encodeURIComponent(view)}`;
    emailLink(w, page, email.address, hosts.signInLinkBase(req, page), linkEnd).catch((error: unknown) =>
      logger.error({ err: error, pageId: page.id }, "status page sign-in: the sign-in email could not be sent"),
    );
  }

  async function emailLink(w: Words, page: StatusPage, address: string, linkBase: string, linkEnd: string): Promise<void> {
    const token = randomBytes(32).toString("base64url");
    const now = Date.now();
    await prisma.statusPageSignInToken.create({
      data: { tokenHash: tokenHash(token), pageId: page.id, email: address, expiresAt: new Date(now + PAGE_ACCESS.signInLinkMinutes * 60_000) },
    });
    // Links expired a day ago are told apart no longer ("not valid" instead of "expired"): they can go.
    await prisma.statusPageSignInToken.deleteMany({ where: { pageId: page.id, expiresAt: { lt: new Date(now - 86_400_000) } } });
    await sendSignInMail(settings, w, { to: address, pageTitle: page.title, link: linkBase + token + linkEnd });
  }

  async function openLink(req: Request, res: Response, page: StatusPage, token: string): Promise<void> {
    const hash = tokenHash(token);
    const now = new Date();
    // Spent by the one request whose update finds it unused and unexpired: a link works once, even when opened twice at a time.
    const spent = await prisma.statusPageSignInToken.updateMany({
      where: { tokenHash: hash, pageId: page.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    const stored = await prisma.statusPageSignInToken.findUnique({ where: { tokenHash: hash } });
    const stillAllowed = page.accessType === "email-domain" && !!stored && page.authEmailDomains.includes(emailDomainOf(stored.email));
    if (spent.count === 1 && stillAllowed) return signedIn(req, res, page, new URL(req.url ?? "/", "http://page").searchParams.get(FIELDS.next));

    const w = wordsFor(req, page.language);
    const again = (heading: MessageKey, reason: string, status: number) => {
      const answer = notice(w.t(heading), w.t("signIn.askAgain", { reason }), { href: hosts.pagePath(req, page), text: w.t("signIn.newLink") }, w.lang);
      sendPage(res, status, answer);
    };
    if (!stored || stored.pageId !== page.id) return again("signIn.linkNotValid", w.t("signIn.notOfThisPage"), 400);
    if (spent.count === 1) return again("signIn.linkNoLongerValid", w.t("signIn.accessChanged"), 410);
    if (stored.usedAt) return again("signIn.linkUsed", w.t("signIn.worksOnce"), 410);
    return again("signIn.linkExpired", w.t("signIn.linksLast", { minutes: PAGE_ACCESS.signInLinkMinutes }), 410);
  }

  const on = (method: "GET" | "POST", path: string, lookup: Lookup, handler: (req: Request, res: Response, page: StatusPage, params: Params) => Promise<void>) =>
    router.on(method, path, (req, res, params) => {
      (async () => {
        const page = await lookup(req, params);
        if (!page) {
          const w = wordsFor(req, DEFAULT_PAGE_LANGUAGE);
          return sendPage(res, 404, notice(w.t("notFound.title"), w.t("notFound.text"), { href: "/", text: w.t("notFound.home") }, w.lang));
        }
        await handler(req, res, page, params);
      })().catch((error: unknown) => {
        logger.error({ err: error, method, path }, "status page sign-in failed");
        const w = wordsFor(req, DEFAULT_PAGE_LANGUAGE);
        if (!res.headersSent) sendPage(res, 500, notice(w.t("signIn.failed"), w.t("signIn.tryAgain"), undefined, w.lang));
      });
    });

  // A GET of the form's address (a reload after posting) goes back to the page and its form.
  const backToPage = async (req: Request, res: Response, page: StatusPage) => redirect(res, hosts.pagePath(req, page));

  for (const [prefix, lookup] of [["/status/:slug", bySlug], ["", byDomain]] as const) {
    on("POST", `${prefix}/sign-in`, lookup, post);
    on("GET", `${prefix}/sign-in`, lookup, backToPage);
    on("GET", `${prefix}/sign-in/:token`, lookup, (req, res, page, params) => openLink(req, res, page, params.token ?? ""));
  }
}

/** 303 See Other: after a post or a link, the browser GETs the page. */
function redirect(res: Response, location: string, headers: Record<string, string> = {}): void {
  (res as ServerResponse).writeHead(303, { location, "cache-control": "no-store", ...headers }).end();
}

/** The urlencoded form of a POST; null when it is larger than any sign-in form. */
async function readForm(req: Request): Promise<URLSearchParams | null> {
  const body = await readBody(req);
  return body === null ? null : new URLSearchParams(body.toString("utf8"));
}
