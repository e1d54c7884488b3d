import { createHash, createHmac, randomBytes } from "node:crypto";

/** A token as stored: only its SHA-256, so a copy of the database opens no link. */
export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/**
 * The tokens of subscription links. A confirmation token is random and
 * mailed once. An unsubscribe token is an HMAC of the subscriber's id under
 * a key of the deployment: every mail carries it without it being stored,
 * and the row keeps its hash to find the subscriber by.
 */
export class SubscriberTokens {
  constructor(private readonly key: Buffer) {}

  newConfirmToken(): string {
    return randomBytes(32).toString("base64url");
  }

  unsubscribeToken(subscriberId: string): string {
    return createHmac("sha256", this.key).update(`unsubscribe:${subscriberId}`).digest("base64url");
  }
}
