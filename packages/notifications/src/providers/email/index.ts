import nodemailer, { type NodemailerError, type Transporter } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser";
import { DeliveryError } from "../../errors";
import { hostOf } from "../../http";
import { incidentKey } from "../../incident-key";
import { plainText, title } from "../../text";
import type { AlertMessage, Provider } from "../../types";
import { refuseUnconfigured } from "../../unconfigured";
import { alertHtml } from "./html";

const transports = new Map<string, Transporter>();

/**
 * One pooled transport per SMTP URL: an event goes to many channels at once,
 * and a pool sends them over a few reused connections instead of one
 * handshake (and TLS and login) per message.
 */
export function transportFor(smtpUrl: string, timeoutMs: number): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** Closes the pooled SMTP connections, at shutdown. */
export function closeEmailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}

/** The domain of EMAIL_FROM: Message-IDs are "<unique@sender's domain>" (RFC 5322 §3.6.4). */
function domainOf(from: string): string {
  const [sender] = addressparser(from, { flatten: true });
  return /@([^@\s]+)$/.exec(sender?.address ?? "")?.[1] ?? "localhost";
}

/**
 * Message-IDs that need no stored state. The message that opens a thread
 * (the alert that opened the incident, whose time is the incident's start,
 * or a test) takes the incident's root id; every later message of the
 * incident (a degradation after a failure, the recovery) gets an id of its
 * own and In-Reply-To and References pointing at the root, so mail clients
 * show it under the first alert. A retry sends the same ids.
 */
function threadingOf(message: AlertMessage, channelId: string, domain: string) {
  const root = `<${incidentKey(message)}-${channelId}@${domain}>`;
  const opening =
    message.incident === null ||
    (message.event !== "monitor.recovered" && message.occurredAt.getTime() === message.incident.startedAt.getTime());
  if (opening) return { messageId: root };
  return { messageId: `<${incidentKey(message)}-${channelId}-${message.id}@${domain}>`, inReplyTo: root, references: [root] };
}

// Failures of the connection rather than answers of the server: worth another try.
const CONNECTION_FAILURES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS"]);

/**
 * SMTP 4xx answers are temporary by definition (greylisting, a full queue)
 * and retried, as are lost connections and timeouts; 5xx answers (unknown
 * recipient, relaying denied, bad login) and anything else are final.
 */
export function deliveryErrorOf(error: NodemailerError, smtpUrl: string): DeliveryError {
  const code = error.responseCode;
  const retryable = code !== undefined ? code >= 400 && code < 500 : CONNECTION_FAILURES.has(error.code ?? "");
  return new DeliveryError(`${hostOf(smtpUrl)}: ${error.message}`, retryable);
}

export const email: Provider<"email"> = {
  type: "email",
  missingSettings: (settings) => (settings.smtpUrl ? [] : ["SMTP_URL"]),
  async send(message, channel, { settings }) {
    refuseUnconfigured(email.missingSettings(settings));
    const smtpUrl = settings.smtpUrl ?? "";
    try {
      await transportFor(smtpUrl, settings.requestTimeoutMs).sendMail({
        from: settings.emailFrom,
        to: channel.config.email,
        subject: `[Vigil] ${title(message)}`,
        text: plainText(message),
        html: alertHtml(message),
        ...threadingOf(message, channel.id, domainOf(settings.emailFrom)),
        headers: {
          // Out-of-office and delivery-report robots must not answer an alert (RFC 3834; Microsoft's own header).
          "Auto-Submitted": "auto-generated",
          "X-Auto-Response-Suppress": "OOF, DR, RN, NRN, AutoReply",
        },
      });
    } catch (error) {
      throw deliveryErrorOf(error as NodemailerError, smtpUrl);
    }
    return { statusCode: null };
  },
};
