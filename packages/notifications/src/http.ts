import { isIP } from "node:net";
import { AddressRefusedError, isAddressRefusedError, type AddressPolicy } from "@vigil/domain";
import { Agent, buildConnector, request } from "undici";
import { DeliveryError, isRetryableStatus, parseRetryAfter } from "./errors";
import type { SendContext } from "./types";

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The answer's first maxResponseBytes, as text. */
  body: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json) or a form (application/x-www-form-urlencoded). */
  json?: unknown;
  form?: URLSearchParams;
  /** Overrides the JSON content type (Google Chat asks for a charset). */
  contentType?: string;
  /** Where the retry wait is when the provider puts it in the body (Discord, Telegram). */
  retryAfterFromBody?: (body: string) => number | null;
  /**
   * The URL is built on a provider API base from the deployment's settings
   * (PAGERDUTY_EVENTS_URL, …), which the operator chose: not guarded. Every
   * other URL is a channel's, which a user chose, and goes through the SSRF
   * guard (settings.addressPolicy).
   */
  operatorEndpoint?: boolean;
}

/**
 * POSTs to a provider with the deployment's timeout and answer size cap, and
 * turns anything but a 2xx into a DeliveryError carrying the status and the
 * provider's answer: retryable for network errors, timeouts, 408, 429 and
 * 5xx (with Retry-After, in seconds or as a date), final for other answers.
 * Redirects are not followed: a provider API that redirects is misconfigured.
 * A connection the SSRF guard refuses fails the delivery for good.
 */
export async function post(url: string, options: PostOptions, { settings }: SendContext): Promise<HttpAnswer> {
  const body = options.form ? options.form.toString() : JSON.stringify(options.json ?? {});
  const contentType = options.form ? "application/x-www-form-urlencoded" : (options.contentType ?? "application/json");
  let answer: HttpAnswer;
  try {
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": contentType, "user-agent": "Vigil", ...options.headers },
      body,
      signal: AbortSignal.timeout(settings.requestTimeoutMs),
      headersTimeout: settings.requestTimeoutMs,
      bodyTimeout: settings.requestTimeoutMs,
      ...(!options.operatorEndpoint && { dispatcher: guardedDispatcher(settings.addressPolicy) }),
    });
    answer = { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, settings.maxResponseBytes) };
  } catch (error) {
    const refused = [error, (error as Error).cause].find(isAddressRefusedError);
    if (refused) throw new DeliveryError(`${hostOf(url)}: ${refused.message}`, false);
    const timedOut = (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError";
    const what = timedOut ? `no answer within ${settings.requestTimeoutMs / 1000} s` : (error as Error).message;
    throw new DeliveryError(`${hostOf(url)}: ${what}`, true);
  }
  if (answer.status >= 200 && answer.status < 300) return answer;
  const retryAfterMs = parseRetryAfter(answer.headers["retry-after"]) ?? options.retryAfterFromBody?.(answer.body) ?? null;
  const said = answer.body.trim().slice(0, 500);
  throw new DeliveryError(
    `${hostOf(url)} answered HTTP ${answer.status}${said ? `: ${said}` : ""}`,
    isRetryableStatus(answer.status),
    answer.status,
    retryAfterMs,
  );
}

/** One pool per address policy (a process has one or two), kept until closeHttpConnections(). */
const guardedDispatchers = new Map<AddressPolicy, Agent>();

/**
 * A connection pool whose every connection is to an address `policy`
 * permits: IP literals are asked directly, names through the lookup the
 * socket connects with (so a rebinding name cannot slip past).
 */
function guardedDispatcher(policy: AddressPolicy): Agent {
  let dispatcher = guardedDispatchers.get(policy);
  if (dispatcher === undefined) {
    const connect = buildConnector({ lookup: policy.lookup() });
    dispatcher = new Agent({
      connect: (options, callback) => {
        const refusal = isIP(options.hostname) === 0 ? null : policy.refusal(options.hostname);
        if (refusal !== null) return callback(new AddressRefusedError(refusal), null);
        connect(options, callback);
      },
    });
    guardedDispatchers.set(policy, dispatcher);
  }
  return dispatcher;
}

/** Closes the pooled connections to providers, at shutdown: kept-alive sockets would keep the process alive for seconds. */
export async function closeHttpConnections(): Promise<void> {
  const pools = [...guardedDispatchers.values()];
  guardedDispatchers.clear();
  await Promise.all(pools.map((pool) => pool.close()));
}

/** The host alone: URLs of webhook channels are secrets and never go into messages or logs. */
export function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "the provider";
}

async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBytes) {
      stream.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8");
}
