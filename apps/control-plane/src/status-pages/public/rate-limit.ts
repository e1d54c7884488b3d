import { RateLimiterMemory } from "rate-limiter-flexible";
import { PAGE_ACCESS } from "@vigil/domain";

/**
 * Sign-in attempts per client address and page: wrong passwords and
 * requests for an emailed link. Counted in this control plane's memory, so
 * with several replicas behind a balancer a client gets up to that many
 * times the limit (docs/status-pages.md).
 */
export class SignInAttempts {
  private readonly limiter = new RateLimiterMemory({
    points: PAGE_ACCESS.signInAttempts,
    duration: PAGE_ACCESS.signInWindowSeconds,
  });

  /** Seconds until the client may try again on the page; 0 when it may now. */
  async retryAfter(client: string, pageId: string): Promise<number> {
    const state = await this.limiter.get(keyOf(client, pageId));
    if (!state || state.consumedPoints < PAGE_ACCESS.signInAttempts) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  async record(client: string, pageId: string): Promise<void> {
    await this.limiter.penalty(keyOf(client, pageId), 1);
  }
}

const keyOf = (client: string, pageId: string) => `${client}|${pageId}`;
