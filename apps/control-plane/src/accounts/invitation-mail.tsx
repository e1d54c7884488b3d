import { ACCOUNTS } from "@vigil/domain";
import { emailTransport, mailHtml, type ProviderSettings } from "@vigil/notifications";

/** Mails an invitation's link through the deployment's SMTP server; the link is the mail's first link and first URL. */
export async function sendInvitationMail(settings: ProviderSettings, mail: { to: string; workspace: string; role: string; link: string }): Promise<void> {
  const days = ACCOUNTS.invitationDays;
  await emailTransport(settings.smtpUrl ?? "", settings.requestTimeoutMs).sendMail({
    from: settings.emailFrom,
    to: mail.to,
    subject: `You are invited to ${mail.workspace} on Vigil`,
    text: [mail.link, "", `Open this link to join the workspace "${mail.workspace}" as ${mail.role}. It works once, for ${days} days.`].join("\n"),
    html: mailHtml(
      <>
        <p>
          <a href={mail.link}>{`Join ${mail.workspace} on Vigil`}</a>
        </p>
        <p>{`You are invited as ${mail.role}. The link works once, for ${days} days.`}</p>
      </>,
    ),
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
