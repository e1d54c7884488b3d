import { ACCOUNTS } from "@vigil/domain";
import type { ProviderSettings } from "@vigil/notifications";
import { sendLinkMail } from "./account-mail";

/** Mails an invitation's link through the deployment's SMTP server. */
export async function sendInvitationMail(settings: ProviderSettings, mail: { to: string; workspace: string; role: string; link: string }): Promise<void> {
  await sendLinkMail(settings, {
    to: mail.to,
    subject: `You are invited to ${mail.workspace} on Vigil`,
    link: mail.link,
    linkText: `Join ${mail.workspace} on Vigil`,
    note: `You are invited as ${mail.role}. The link works once, for ${ACCOUNTS.invitationDays} days.`,
  });
}
