import { randomUUID } from "node:crypto";
import pTimeout from "p-timeout";
import { connectRedis, watchRedis, type RedisConnection, type RedisTarget } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { VerifiedSessions } from "../accounts/verified-sessions";
import type { VerifiedKeys } from "./verified-keys";

/** How long a revocation waits for every control plane to confirm it has dropped the key. */
const CONFIRMATION_WAIT_MS = 2_000;

/** Tells every control plane of the deployment that a key was revoked. */
export interface KeyRevocations {
  /** Resolves once every control plane listening has stopped trusting the key (or after a bounded wait). */
  announce(keyId: string): Promise<void>;
}

/** …and that a person's sessions or memberships changed (a session ended, a role changed), or a workspace's single sign-on. */
export interface Revocations extends KeyRevocations {
  /** Resolves once every control plane listening has dropped its copies of the person's sessions (or after a bounded wait). */
  announcePerson(userId: string): Promise<void>;
  /** …of the sessions of the workspace's members. */
  announceWorkspace(workspaceId: string): Promise<void>;
}

/** What a revocation names. */
type Revoked = { keyId: string } | { userId: string } | { workspaceId: string };

interface Pending {
  confirmed: number;
  /** How many control planes received the announcement; known once PUBLISH answers. */
  receivers: number;
  done: () => void;
}

/**
 * Carries revocations of keys and of people's sessions between the control
 * planes of a deployment over Redis pub/sub. Each control plane drops the
 * key's (or the person's) verified copies and confirms; the revoking call
 * waits for as many confirmations as PUBLISH reported receivers, so that once
 * it answers, the credential fails on the very next call to any control
 * plane. Without Redis a revocation still holds here at once and elsewhere
 * within VERIFIED_COPY_TTL_MS; after a lost subscription a control plane
 * drops every copy, since it may have missed some. `copies` is empty in a
 * process that only announces (the offline admin command).
 */
export function relayRevocations(
  copies: { keys?: VerifiedKeys; sessions?: VerifiedSessions },
  redis: RedisConnection,
  prefix: string,
  logger: Logger,
): Revocations & { close(): void } {
  const channel = `${prefix}:api-key-revocations`;
  const confirmations = `${prefix}:api-key-revocation-confirmations`;
  const pending = new Map<string, Pending>();
  const settle = (token: string) => {
    const entry = pending.get(token);
    if (entry && entry.confirmed >= entry.receivers) entry.done();
  };

  // A subscribed connection takes no other commands.
  const subscriber = redis.duplicate();
  watchRedis(subscriber, logger, "key revocation relay");
  subscriber.on("ready", () => {
    copies.keys?.forgetAll();
    copies.sessions?.forgetAll();
  });
  subscriber.on("message", (from: string, message: string) => {
    if (from === confirmations) {
      const entry = pending.get(message);
      if (entry) (entry.confirmed++, settle(message));
      return;
    }
    const { token, ...revoked } = JSON.parse(message) as Revoked & { token: string };
    forget(revoked);
    redis.publish(confirmations, token).catch((error: unknown) => logger.warn({ err: error, ...revoked }, "confirming a revocation failed"));
  });
  const subscribed = subscriber.subscribe(channel, confirmations);
  subscribed.catch((error: unknown) => logger.warn({ err: error }, "subscribing to API key revocations failed"));

  function forget(revoked: Revoked): void {
    if ("keyId" in revoked) copies.keys?.forget(revoked.keyId);
    else if ("userId" in revoked) copies.sessions?.forgetPerson(revoked.userId);
    else copies.sessions?.forgetMembersOf(revoked.workspaceId);
  }

  async function announce(revoked: Revoked): Promise<void> {
    forget(revoked);
    const token = randomUUID();
    const confirmed = new Promise<void>((resolve) => pending.set(token, { confirmed: 0, receivers: Infinity, done: resolve }));
    const published = (async () => {
      await subscribed;
      pending.get(token)!.receivers = await redis.publish(channel, JSON.stringify({ ...revoked, token }));
      settle(token);
      await confirmed;
    })();
    try {
      await pTimeout(published, { milliseconds: CONFIRMATION_WAIT_MS, message: `not every control plane confirmed within ${CONFIRMATION_WAIT_MS} ms` });
    } catch (error) {
      logger.warn({ err: error, ...revoked }, "revoked; other control planes may accept the credential until their copy expires");
    } finally {
      // Ends the wait for confirmations that are not coming, should the time have run out.
      pending.get(token)?.done();
      pending.delete(token);
    }
  }

  return {
    announce: (keyId) => announce({ keyId }),
    announcePerson: (userId) => announce({ userId }),
    announceWorkspace: (workspaceId) => announce({ workspaceId }),
    close: () => subscriber.disconnect(),
  };
}

/**
 * Revocations from a process that runs no control plane (the offline admin
 * command on a shared database): Redis is connected only if a key is revoked.
 */
export function announcingThroughRedis(target: RedisTarget, prefix: string, logger: Logger): KeyRevocations & { close(): void } {
  let connected: { redis: RedisConnection; relay: ReturnType<typeof relayRevocations> } | undefined;
  return {
    announce(keyId) {
      if (!connected) {
        const redis = connectRedis(target, "vigil-admin");
        watchRedis(redis, logger, "admin");
        connected = { redis, relay: relayRevocations({}, redis, prefix, logger) };
      }
      return connected.relay.announce(keyId);
    },
    close() {
      connected?.relay.close();
      connected?.redis.disconnect();
    },
  };
}
