import { randomBytes } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { DeliveryError, postSignedWebhook, type ProviderSettings } from "@vigil/notifications";

/** What a subscriber's webhook is told of the page. */
export interface WebhookPage {
  id: string;
  title: string;
  url: string;
}

/**
 * The body of a subscriber's webhook, version 1 (docs/status-pages.md
 * "Subscribers"): a Standard Webhooks envelope whose `type` is the notice's
 * kind or `subscription.verification`. Fields are only ever added to a version.
 */
const envelope = (type: string, id: string, at: Date, data: Record<string, unknown>) => ({ type, version: 1, id, timestamp: at.toISOString(), data });

/** Whether an answer echoes the challenge: `{"challenge": "…"}`, or the challenge as the whole body. */
function echoes(body: string, challenge: string): boolean {
  if (body.trim() === challenge) return true;
  try {
    return (JSON.parse(body) as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}

/**
 * The verification handshake: a signed `subscription.verification` event
 * whose `data.challenge` the endpoint must answer with a 2xx whose body is
 * `{"challenge": "<it>"}` (or the bare challenge). A URL that does not answer
 * so is not subscribed: nobody can subscribe an endpoint that did not agree.
 * Null when it agreed, else why not.
 */
export async function verifyWebhook(url: string, secret: string, page: WebhookPage, settings: ProviderSettings): Promise<string | null> {
  const challenge = randomBytes(24).toString("base64url");
  const id = `verify_${uuidv7()}`;
  try {
    const answer = await postSignedWebhook(url, secret, id, envelope("subscription.verification", id, new Date(), { challenge, page }), { settings });
    return echoes(answer.body, challenge) ? null : "the endpoint answered without echoing the challenge";
  } catch (error) {
    return error instanceof DeliveryError ? error.message : String(error);
  }
}

/** What a notice tells a webhook. */
export interface NoticeEvent {
  kind: string;
  createdAt: Date;
  subject: { id: string; title: string; status: string; message: string; link: string; componentIds: string[]; unsubscribeUrl: string };
}

/** The HTTP status with which an endpoint ends its own subscription (410 Gone). */
export const GONE = 410;

/** Sends a notice to a subscriber's webhook; `deliveryId` is its webhook-id, the same on every retry. */
export async function sendNoticeWebhook(url: string, secret: string, deliveryId: string, page: WebhookPage, notice: NoticeEvent, settings: ProviderSettings): Promise<void> {
  await postSignedWebhook(url, secret, deliveryId, envelope(notice.kind, deliveryId, notice.createdAt, { page, ...notice.subject }), { settings });
}
