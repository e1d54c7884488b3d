import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { DeliveryError } from "../../errors";
import { post, type HttpAnswer } from "../../http";
import { plainText } from "../../text";
import type { AlertMessage, Channel, Provider, SendContext } from "../../types";

/** A new channel's Standard Webhooks signing secret: whsec_ and 32 random bytes in base64. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * Vigil's webhook body, version 1 (docs/alerting.md): a Standard Webhooks
 * envelope whose `type` is the event. Fields are only ever added to a
 * version; a change of meaning gets a new `version`.
 */
function webhookEnvelope(message: AlertMessage) {
  const { incident } = message;
  return {
    type: message.event,
    version: 1,
    id: message.id,
    timestamp: message.occurredAt.toISOString(),
    data: {
      // Spelled out field by field: the envelope must not change when AlertMessage does.
      monitor: { id: message.monitor.id, name: message.monitor.name, kind: message.monitor.kind, target: message.monitor.target },
      status: message.status,
      incident: incident && {
        id: incident.id,
        startedAt: incident.startedAt.toISOString(),
        resolvedAt: incident.resolvedAt?.toISOString() ?? null,
      },
      regions: message.regions.map((r) => ({
        region: r.region,
        status: r.status,
        error: r.error,
        reason: r.reason,
        statusCode: r.statusCode,
        latencyMs: r.latencyMs,
      })),
      error: message.error,
      reason: message.reason,
      statusCode: message.statusCode,
      latencyMs: message.latencyMs,
      durationMs: message.durationMs,
      link: message.link,
      // Alerts and reminders of an open incident: the single-use link that acknowledges it.
      ackLink: message.ackLink ?? null,
      // Reminders: their number (1 for the first); durationMs is then how long the incident has lasted.
      reminder: message.reminder ?? null,
      // incident.acknowledged: who acknowledged the incident and when.
      acknowledgement: message.acknowledgement ? { by: message.acknowledgement.by, at: message.acknowledgement.at.toISOString() } : null,
      // monitor.certificate_expiring and _renewed: the certificate, the region that saw it and the whole days
      // left then; on a renewal, `renews` is the chain expiry of the certificate that was warned about.
      certificate: message.certificate
        ? {
            notAfter: message.certificate.notAfter,
            chainNotAfter: message.certificate.chainNotAfter,
            issuer: message.certificate.issuer,
            subjectAltNames: message.certificate.subjectAltNames,
            daysLeft: message.certificate.daysLeft,
            region: message.certificate.region,
            renews: message.certificate.renews ?? null,
          }
        : null,
      // slo.burn_rate and _ended: the objective, its target, the burn rates over 1 h and 6 h and the budget left.
      slo: message.slo ?? null,
      text: plainText(message),
    },
  };
}

/** Headers Vigil sets itself: a channel's headers cannot change how the body is framed or signed. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "transfer-encoding", "webhook-id", "webhook-timestamp", "webhook-signature"]);

function channelHeaders(headers: { key: string; value: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of headers) {
    const name = key.toLowerCase();
    if (!RESERVED_HEADERS.has(name)) out[name] = value;
  }
  return out;
}

function signerOf(channel: Channel<"webhook">): Webhook {
  const problem = "has no valid signing secret; recreate the channel";
  if (!channel.signingSecret) throw new DeliveryError(`webhook channel ${problem}`, false);
  try {
    return new Webhook(channel.signingSecret);
  } catch {
    throw new DeliveryError(`webhook channel ${problem}`, false);
  }
}

/** The Standard Webhooks headers of a body, signed now. post() serialises the same object with JSON.stringify, byte for byte what is signed. */
function signedHeaders(signer: Webhook, id: string, body: string): Record<string, string> {
  const at = new Date();
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signer.sign(id, at, body) };
}

/**
 * POSTs a JSON body signed per Standard Webhooks with `secret` (whsec_…) to
 * a URL a user chose, through the SSRF guard, as a webhook channel's are
 * sent (status page subscribers' webhooks use it).
 * @throws DeliveryError for anything but a 2xx, as post() does
 */
export async function postSignedWebhook(url: string, secret: string, id: string, json: unknown, context: SendContext): Promise<HttpAnswer> {
  return post(url, { json, headers: signedHeaders(new Webhook(secret), id, JSON.stringify(json)) }, context);
}

export const webhook: Provider<"webhook"> = {
  type: "webhook",
  missingSettings: () => [],
  async send(message, channel, context) {
    const signer = signerOf(channel);
    const envelope = webhookEnvelope(message);
    // post() serialises the same object with JSON.stringify, byte for byte what is signed here.
    const headers = { ...channelHeaders(channel.config.headers), ...signedHeaders(signer, message.id, JSON.stringify(envelope)) };
    const answer = await post(channel.config.endpoint, { json: envelope, headers }, context);
    return { statusCode: answer.status };
  },
};
