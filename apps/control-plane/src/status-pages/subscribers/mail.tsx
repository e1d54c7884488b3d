import { SUBSCRIBERS } from "@vigil/domain";
import { Markdown } from "../public/html";
import type { Words } from "../public/words";
import { emailTransport, mailHtml, smtpDeliveryError, type ProviderSettings } from "@vigil/notifications";

/**
 * The SMTP server refused the recipient for good: a 5xx to RCPT TO
 * (nodemailer's EENVELOPE), the bounce told while sending. A bounce mailed
 * back later is not read: Vigil has no inbound address.
 */
export class RecipientRefused extends Error {}

/** Robots (out-of-office, delivery reports) must not answer these mails (RFC 3834; Microsoft's own header). */
const AUTOMATIC = { "Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "OOF, DR, RN, NRN, AutoReply" };

/** Through the deployment's pooled SMTP transport (the email channels'), so a notice to thousands reuses a few connections. */
const transport = (settings: ProviderSettings) => emailTransport(settings.smtpUrl ?? "", settings.requestTimeoutMs);

/** The double opt-in mail: its confirmation link is its first link and first URL. */
export async function sendConfirmationMail(settings: ProviderSettings, w: Words, mail: { to: string; pageTitle: string; link: string }): Promise<void> {
  const hours = SUBSCRIBERS.confirmLinkHours;
  const subject = w.t("subscribe.confirmSubject", { page: mail.pageTitle });
  await transport(settings).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject,
    text: [mail.link, "", w.t("subscribe.confirmOpen", { page: mail.pageTitle, hours }), w.t("subscribe.confirmIgnore")].join("\n"),
    html: mailHtml(
      <>
        <p>
          <a href={mail.link}>{subject}</a>
        </p>
        <p>{w.t("subscribe.confirmLinkWorks", { hours })}</p>
      </>,
    ),
    headers: { ...AUTOMATIC, "Content-Language": w.lang },
  });
}

/** What a notice mail tells, to one subscriber. */
export interface NoticeMail {
  /** The page's language, which notices are written in. */
  words: Words;
  to: string;
  pageTitle: string;
  subject: string;
  /** Markdown; rendered safely (markdownHtml) in the HTML part. */
  message: string;
  link: string;
  unsubscribeLink: string;
}

/**
 * A notice to an email subscriber. Every one carries its unsubscribe link in
 * the body and in List-Unsubscribe, with List-Unsubscribe-Post so that mail
 * clients unsubscribe with one click (RFC 8058: a POST, no page to visit).
 */
export async function sendNoticeMail(settings: ProviderSettings, mail: NoticeMail): Promise<void> {
  try {
    await sendNotice(settings, mail);
  } catch (error) {
    const { code, responseCode } = error as { code?: string; responseCode?: number };
    if (code === "EENVELOPE" && responseCode !== undefined && responseCode >= 500) throw new RecipientRefused(`recipient refused (SMTP ${responseCode})`);
    throw smtpDeliveryError(error as Parameters<typeof smtpDeliveryError>[0], settings.smtpUrl ?? "");
  }
}

async function sendNotice(settings: ProviderSettings, mail: NoticeMail): Promise<void> {
  await transport(settings).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject: `[${mail.pageTitle}] ${mail.subject}`,
    text: [mail.message, "", mail.link, "", mail.words.t("subscribe.unsubscribeLine", { link: mail.unsubscribeLink })].join("\n"),
    html: mailHtml(
      <>
        <Markdown text={mail.message} />
        <p>
          <a href={mail.link}>{mail.words.t("subscribe.seeItOn", { page: mail.pageTitle })}</a>
        </p>
        <p>
          <a href={mail.unsubscribeLink}>{mail.words.t("subscribe.unsubscribe")}</a>
        </p>
      </>,
    ),
    headers: { ...AUTOMATIC, "Content-Language": mail.words.lang, "List-Unsubscribe": `<${mail.unsubscribeLink}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  });
}
