import { ACCOUNTS } from "@vigil/domain";
import { emailTransport, mailHtml, type ProviderSettings } from "@vigil/notifications";
import { attemptLimiter } from "../limits/attempt-limiter";
import type { SharedRedis } from "../limits/shared-rate-limiter";

/** Mails to one address of every kind (invitations, verification and reset links), counted across every control plane. */
export const mailsByAddress = (redis: SharedRedis) => attemptLimiter(redis, "account-mail", { points: ACCOUNTS.mailsPerAddressPerHour, seconds: 3_600 });

/**
 * Mails a single-use link of the accounts (invitation, email verification,
 * password reset) through the deployment's SMTP server; the link is the mail's
 * first link and first URL.
 */
export async function sendLinkMail(settings: ProviderSettings, mail: { to: string; subject: string; link: string; linkText: string; note: string }): Promise<void> {
  await emailTransport(settings.smtpUrl ?? "", settings.requestTimeoutMs).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject: mail.subject,
    text: [mail.link, "", `${mail.linkText}. ${mail.note}`].join("\n"),
    html: mailHtml(
      <>
        <p>
          <a href={mail.link}>{mail.linkText}</a>
        </p>
        <p>{mail.note}</p>
      </>,
    ),
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
