import { PAGE_ACCESS } from "@vigil/domain";
import { emailTransport, mailHtml, type ProviderSettings } from "@vigil/notifications";

/**
 * Sends an emailed sign-in link through the deployment's SMTP server (the
 * pooled transport of email channels). The link is the mail's first link and
 * first URL, so that a reader (or a test) never has to guess which to open.
 */
export async function sendSignInMail(settings: ProviderSettings, mail: { to: string; pageTitle: string; link: string }): Promise<void> {
  const minutes = PAGE_ACCESS.signInLinkMinutes;
  await emailTransport(settings.smtpUrl ?? "", settings.requestTimeoutMs).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject: `Sign in to ${mail.pageTitle}`,
    text: [
      mail.link,
      "",
      `Open this link to read the status page "${mail.pageTitle}". It works once, for ${minutes} minutes.`,
      "If you did not ask for it, ignore this email.",
    ].join("\n"),
    html: mailHtml(
      <>
        <p>
          <a href={mail.link}>{`Sign in to ${mail.pageTitle}`}</a>
        </p>
        <p>{`The link works once, for ${minutes} minutes. If you did not ask for it, ignore this email.`}</p>
      </>,
    ),
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
