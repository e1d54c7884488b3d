import type { PrismaClient } from "@vigil/db";
import type { SecretBox } from "../../notifications/secrets";
import { SubscriberRepository } from "./repository";
import { SubscriberTokens } from "./tokens";

/** What the subscription routes and RPCs of one API server share: the subscribers' store and its limit. */
export interface Subscriptions {
  repository: SubscriberRepository;
  tokens: SubscriberTokens;
  /** Subscribers one page may have (STATUS_PAGE_SUBSCRIBERS_MAX). */
  maxPerPage: number;
}

/** The deployment's subscription tokens: under a key of their own, so an unsubscribe token opens nothing else. */
export const subscriberTokensOf = (secrets: SecretBox) => new SubscriberTokens(secrets.deriveKey("status page subscriptions"));

export function subscriptionsOf(prisma: PrismaClient, secrets: SecretBox, maxPerPage: number): Subscriptions {
  const tokens = subscriberTokensOf(secrets);
  return { repository: new SubscriberRepository(prisma, tokens), tokens, maxPerPage };
}
