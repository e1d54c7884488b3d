import { PAGE_ACCESS } from "@vigil/domain";
import { emailTransport, mailHtml, type ProviderSettings } from "@vigil/notifications";
import type { Words } from "./words";

/**
 * Sends an emailed sign-in link through the deployment's SMTP server (the
 * pooled transport of email channels). The link is the mail's first link and
 * first URL, so that a reader (or a test) never has to guess which to open.
 */
export async function sendSignInMail(settings: ProviderSettings, w: Words, mail: { to: string; pageTitle: string; link: string }): Promise<void> {
  const minutes = PAGE_ACCESS.signInLinkMinutes;
  const subject = w.t("signIn.mailSubject", { page: mail.pageTitle });
  await emailTransport(settings.smtpUrl ?? "", settings.requestTimeoutMs).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject,
    text: [mail.link, "", w.t("signIn.mailOpen", { page: mail.pageTitle, minutes }), w.t("signIn.mailIgnore")].join("\n"),
    html: mailHtml(
      <>
        <p>
          <a href={mail.link}>{subject}</a>
        </p>
        <p>{w.t("signIn.mailLinkWorks", { minutes })}</p>
      </>,
    ),
    headers: { "Auto-Submitted": "auto-generated", "Content-Language": w.lang },
  });
}
