import { request } from "undici";
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
}

/**
 * POSTs to a provider with the deployment's timeout and answer size cap, and
 * turns anything but a 2xx into a DeliveryError carrying the status and the
 * provider's answer: retryable for network errors, timeouts, 408, 429 and
 * 5xx (with Retry-After, in seconds or as a date), final for other answers.
 * Redirects are not followed: a provider API that redirects is misconfigured.
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
    });
    answer = { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, settings.maxResponseBytes) };
  } catch (error) {
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
