/**
 * The HTTP check: one attempt at an http:// or https:// target. Every request
 * goes over a connection opened for it by our own connector, so that DNS,
 * TCP connect and TLS are timed on the socket itself; redirects are followed
 * here rather than by undici, so that each hop is timed the same way; the
 * response is judged by the domain's assertion rules (failedHttpAssertions).
 */
import { isIP, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { connect as connectTls } from "node:tls";
import * as zlib from "node:zlib";
import { AddressPolicy, effectiveTimeoutMs, failedHttpAssertions, type FailureReason, type Header, type HttpMonitorConfig } from "@vigil/domain";
import { Client, errors, type Dispatcher, type buildConnector } from "undici";
import { Deadline } from "./deadline";
import { TargetFailure, codeOf, isErrorLike, messageOf } from "./errors";
import { connectToAny, ready, resolveHost } from "./network";
import { NO_TIMING, type Attempt, type CheckEnvironment, type Timing } from "./types";

/** Redirects followed at most; one more fails the attempt. */
export const MAX_REDIRECTS = 10;
/** Bytes of the (decoded) response body read for the assertions; the rest is never read. */
export const MAX_BODY_BYTES = 1024 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Sent unless the monitor sets its own: some servers refuse requests that have none. */
const USER_AGENT = "Vigil/0.1 (synthetic monitoring)";
/** Headers that describe the request body, dropped when a redirect drops the body (as the Fetch standard does). */
const BODY_HEADERS = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"]);
/** Headers not sent on to another origin: credentials must not leak to a site the target redirects to. */
const ORIGIN_BOUND_HEADERS = new Set(["authorization", "cookie", "proxy-authorization", "host"]);
/**
 * What a client closed after its request fails any leftover work with. One
 * for all: undici would otherwise build (and capture a stack for) an error
 * per closed client, a tenth of an attempt's CPU.
 */
const CLIENT_DONE = new errors.ClientDestroyedError();

/**
 * One attempt: the request (and its redirects, when the monitor follows
 * them), bounded as a whole by the monitor's timeout. Resolves to a failed
 * Attempt for anything the target does; rejects only on a bug here.
 */
export async function httpAttempt(config: HttpMonitorConfig, env: CheckEnvironment): Promise<Attempt> {
  const timeoutMs = effectiveTimeoutMs(config.timeout);
  const deadline = new Deadline(timeoutMs, env.signal);
  const origin: AttemptOrigin = { began: undefined };
  const state: AttemptState = { clock: new PhaseClock(origin), statusCode: null, origin };
  // The attempt's time is the target's: from its first phase (not from setting up our client, which the
  // target has no part in) to its last byte or failure (not until its connection has finished closing).
  const result = (error: string | null, reason: FailureReason | null): Attempt => ({
    ok: error === null,
    latencyMs: origin.began === undefined ? 0 : (state.clock.stoppedAt ?? performance.now()) - origin.began,
    timing: state.clock.timing,
    statusCode: state.statusCode,
    error,
    reason,
  });

  try {
    const first = firstRequest(config);
    const response = await fetchFollowingRedirects(first, state, {
      deadline,
      dnsServers: env.dnsServers,
      addressPolicy: env.addressPolicy ?? AddressPolicy.STRICT,
      followRedirects: config.followRedirects,
    });
    // Without status code assertions only 2xx passes (failedHttpAssertions'
    // rule), so with followRedirects off a 3xx fails unless an assertion
    // accepts it: a documented decision, the redirect itself is the answer.
    const failures = failedHttpAssertions(response, config);
    if (failures.length === 0) return result(null, null);
    return result(failures.join("; "), refusesStatus(response.statusCode, config) ? "http_status" : "assertion");
  } catch (error) {
    const phase = state.clock.phase;
    state.clock.stop();
    if (deadline.timedOut) return result(`timed out after ${timeoutMs} ms${phase ? ` ${PHASE_WORDS[phase]}` : ""}`, "timeout");
    // The agent's abort ends the attempt's time as its timeout does; runCheck then rejects rather than report it.
    if (deadline.ended) return result("check aborted", "timeout");
    if (isProgrammerError(error)) throw error;
    const [message, reason] = describeFailure(error, phase);
    return result(message, reason);
  } finally {
    deadline.dispose();
  }
}

/**
 * Whether the status alone fails the monitor: the domain's rule (its status
 * assertions, or 2xx without them) asked with nothing else to judge. A status
 * refused outweighs failed body or header assertions, which it usually causes.
 */
function refusesStatus(statusCode: number, config: HttpMonitorConfig): boolean {
  const statusOnly = { statusCodeAssertions: config.statusCodeAssertions, bodyAssertions: [], headerAssertions: [] };
  return failedHttpAssertions({ statusCode, body: "", headers: {} }, statusOnly).length > 0;
}

// ---------------------------------------------------------------------------
// Requests and redirects

interface HopRequest {
  url: URL;
  method: string;
  headers: Header[];
  /** Sent only when not empty. */
  body: string;
}

interface HopContext {
  deadline: Deadline;
  dnsServers: string[] | undefined;
  /** Asked on every hop's connection, so a redirect to an internal address is refused there. */
  addressPolicy: AddressPolicy;
  followRedirects: boolean;
}

/** What the attempt reports: the phases and status of its latest hop. */
interface AttemptState {
  clock: PhaseClock;
  statusCode: number | null;
  origin: AttemptOrigin;
}

/** When the first phase of the attempt's first hop began (performance.now()); undefined before. */
interface AttemptOrigin {
  began: number | undefined;
}

/** The final response, as failedHttpAssertions observes it. */
interface Received {
  statusCode: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Where a redirect to follow points; the body is not read then. */
  location?: string;
}

function firstRequest(config: HttpMonitorConfig): HopRequest {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    // Only a configuration that bypassed the API's validation gets here: there is nothing to connect to.
    throw new TargetFailure(`invalid URL ${JSON.stringify(config.url)}`, "connect");
  }
  url.hash = "";
  const headers = [...config.headers];
  if (!headers.some((h) => h.key.toLowerCase() === "user-agent")) headers.push({ key: "user-agent", value: USER_AGENT });
  return { url, method: config.method, headers, body: config.body };
}

async function fetchFollowingRedirects(first: HopRequest, state: AttemptState, context: HopContext): Promise<Received> {
  const visited = new Set([hopKey(first)]);
  let request = first;
  for (let redirects = 0; ; redirects += 1) {
    state.clock = new PhaseClock(state.origin);
    state.statusCode = null;
    const response = await send(request, state, context);
    if (response.location === undefined) return response;
    if (redirects === MAX_REDIRECTS) throw new TargetFailure(`more than ${MAX_REDIRECTS} redirects`, "protocol");
    request = redirected(request, response.statusCode, response.location);
    // Without a cookie jar the same request gets the same answer: a loop
    // would only end at the redirect limit, so say what it is at once.
    const key = hopKey(request);
    if (visited.has(key)) throw new TargetFailure(`redirect loop: ${request.method} ${request.url.href} was already requested`, "protocol");
    visited.add(key);
  }
}

const hopKey = (request: HopRequest) => `${request.method} ${request.url.href}`;

/** The request a redirect asks for, with the method and header changes browsers make. */
function redirected(previous: HopRequest, statusCode: number, location: string): HopRequest {
  let url: URL;
  try {
    url = new URL(location, previous.url);
  } catch {
    throw new TargetFailure(`redirect to an invalid URL ${JSON.stringify(location)}`, "protocol");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TargetFailure(`redirect to an unsupported URL ${url.href}`, "protocol");
  url.hash = "";
  const toGet = statusCode === 303 ? previous.method !== "HEAD" : (statusCode === 301 || statusCode === 302) && previous.method === "POST";
  let headers = previous.headers;
  if (toGet) headers = headers.filter((h) => !BODY_HEADERS.has(h.key.toLowerCase()));
  if (url.origin !== previous.url.origin) headers = headers.filter((h) => !ORIGIN_BOUND_HEADERS.has(h.key.toLowerCase()));
  return { url, method: toGet ? "GET" : previous.method, headers, body: toGet ? "" : previous.body };
}

/**
 * One request over a client of its own, so it opens (and times) a fresh
 * connection and nothing is kept alive for a later attempt. The end of the
 * attempt destroys the client, which fails the request wherever it is.
 */
async function send(request: HopRequest, state: AttemptState, context: HopContext): Promise<Received> {
  const { deadline } = context;
  const client = new Client(request.url.origin, {
    connect: timedConnector(state.clock, context),
    // The deadline bounds every phase; undici's own timers would only race it.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const unsubscribe = deadline.onEnd(() => client.destroy(CLIENT_DONE, noop));
  const wanted = { body: request.method !== "HEAD", followRedirects: context.followRedirects };
  try {
    const response = await new Promise<Received>((resolve, reject) => {
      const options: Dispatcher.DispatchOptions = {
        path: request.url.pathname + request.url.search,
        method: request.method as Dispatcher.HttpMethod,
        headers: requestHeaders(request),
        body: request.body === "" ? null : request.body,
      };
      client.dispatch(options, new ResponseReceiver(state, wanted, resolve, reject));
    });
    // A body cut short by the deadline may read as complete.
    deadline.throwIfEnded();
    return response;
  } finally {
    unsubscribe();
    // Closing is not part of the check: the result does not wait for it.
    client.destroy(CLIENT_DONE, noop);
  }
}

/** The monitor's headers as undici's flat list (repeated names kept), with credentials from the URL. */
function requestHeaders(request: HopRequest): string[] {
  // A loop, not flatMap: that made an array per header and cost more than the rest of the request's set-up.
  const flat: string[] = [];
  for (const { key, value } of request.headers) flat.push(key, value);
  const { username, password } = request.url;
  if ((username || password) && !request.headers.some((h) => h.key.toLowerCase() === "authorization")) {
    const credentials = `${percentDecoded(username)}:${percentDecoded(password)}`;
    flat.push("authorization", `Basic ${Buffer.from(credentials).toString("base64")}`);
  }
  return flat;
}

/** URL userinfo is percent-encoded; a malformed escape is sent as written. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---------------------------------------------------------------------------
// The response

/** Headers as undici parses them: lower-case names, a list for a repeated one. */
type ParsedHeaders = Record<string, string | string[] | undefined>;

type Decoder = zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress;

const DECODERS = new Map<string, () => Decoder>([
  // Flushing leniently accepts a body cut short, as browsers do.
  ["gzip", () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  ["x-gzip", () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  ["deflate", () => zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })],
  ["br", () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })],
]);

/** What a hop wants of its response beyond the status and headers. */
interface Wanted {
  /** Whether to read the body (not for HEAD). */
  body: boolean;
  /** Whether a redirect with a Location is answered at its headers, to be followed. */
  followRedirects: boolean;
}

/**
 * Receives one response from undici's parser as it comes (dispatch with a
 * handler) rather than through the Readable stream per response that
 * client.request() makes: that stream, its async iterator and their ticks
 * were a fifth of the garbage of a check on its thread. The clock enters
 * transferMs at the headers and stops at the last byte read.
 *
 * The body is read as UTF-8 text, decoded when the monitor asked for a
 * compressed one, and cut at MAX_BODY_BYTES: reading stops there, so a huge
 * or endless body costs neither memory nor time, and the assertions see its
 * beginning.
 */
class ResponseReceiver implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private headers: Record<string, string> = {};
  private decoder: Decoder | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  /** Pauses and resumes the socket; undici hands it over first (and recognises a handler of this kind by onRequestStart). */
  private controller: Dispatcher.DispatchController | undefined;

  constructor(
    private readonly state: AttemptState,
    private readonly wanted: Wanted,
    private readonly resolve: (response: Received) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: ParsedHeaders): void {
    // An informational answer (100 Continue): the response follows it.
    if (statusCode < 200) return;
    this.state.clock.enter("transferMs");
    this.state.statusCode = statusCode;
    this.statusCode = statusCode;
    this.headers = joinedHeaders(headers);
    const location = this.headers.location;
    if (this.wanted.followRedirects && REDIRECT_STATUSES.has(statusCode) && location !== undefined) return this.finish(location);
    if (!this.wanted.body) return this.finish();
    this.decoder = DECODERS.get(this.headers["content-encoding"]?.trim().toLowerCase() ?? "")?.();
    this.decoder
      ?.on("data", (chunk: Buffer) => this.keep(chunk))
      .on("end", () => this.finish())
      .on("error", (error) => this.fail(error))
      // The socket waits while the decoder catches up, as piping the body into it did.
      .on("drain", () => this.controller?.resume());
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.decoder === undefined) this.keep(chunk);
    else if (!this.decoder.write(chunk)) this.controller?.pause();
  }

  onResponseEnd(): void {
    if (this.decoder === undefined) this.finish();
    else this.decoder.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private keep(chunk: Buffer): void {
    if (this.settled) return;
    const kept = chunk.subarray(0, MAX_BODY_BYTES - this.size);
    this.chunks.push(kept);
    this.size += kept.length;
    if (this.size >= MAX_BODY_BYTES) this.finish();
  }

  private finish(location?: string): void {
    if (this.settled) return;
    this.settled = true;
    this.state.clock.stop();
    this.decoder?.destroy();
    // Most bodies come in one chunk: decoded as it is, not copied into a new Buffer first.
    const body = this.chunks.length === 1 ? this.chunks[0]!.toString("utf8") : Buffer.concat(this.chunks, this.size).toString("utf8");
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body, location });
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.decoder?.destroy();
    this.reject(error);
  }
}

/** The headers as failedHttpAssertions reads them: repeated ones joined with ", ". */
function joinedHeaders(parsed: ParsedHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

// ---------------------------------------------------------------------------
// Connections and their timing

type Phase = keyof Timing;

/** Where an attempt was when it failed, for its error. */
const PHASE_WORDS: Record<Phase, string> = {
  dnsMs: "while resolving the host name",
  connectMs: "while connecting",
  tlsMs: "during the TLS handshake",
  firstByteMs: "while waiting for the response",
  transferMs: "while reading the response body",
};

/**
 * Times a request's phases back to back: entering a phase ends the one
 * before. A phase that started and then failed keeps the time spent in it
 * (a TLS handshake that rejected the certificate took that long); phases
 * never reached stay null.
 */
class PhaseClock {
  readonly timing: Timing = { ...NO_TIMING };
  /** When the request ended (its last byte, or its failure). */
  stoppedAt: number | undefined;
  private current: Phase | null = null;
  private since = 0;

  constructor(private readonly origin: AttemptOrigin) {}

  get phase(): Phase | null {
    return this.current;
  }

  enter(phase: Phase | null): void {
    // A connector still running after the attempt ended must not change its result.
    if (this.stoppedAt !== undefined) return;
    const now = performance.now();
    this.origin.began ??= now;
    if (this.current !== null) this.timing[this.current] = now - this.since;
    this.current = phase;
    this.since = now;
  }

  stop(): void {
    this.enter(null);
    this.stoppedAt ??= this.since;
  }
}

/**
 * undici's connect hook: resolves, connects and handshakes by itself, so
 * each phase is timed on the socket's own events. The clock then waits for
 * the response headers: firstByteMs runs from the connection being ready.
 */
function timedConnector(clock: PhaseClock, context: HopContext): buildConnector.connector {
  return (options, callback) => {
    openConnection(options, clock, context).then(
      (socket) => callback(null, socket),
      (error: unknown) => callback(isErrorLike(error) ? (error as Error) : new Error(String(error)), null),
    );
  };
}

async function openConnection(options: buildConnector.Options, clock: PhaseClock, context: HopContext): Promise<Socket> {
  const { deadline } = context;
  const host = options.hostname; // undici has taken the brackets off IPv6 literals
  const secure = options.protocol === "https:";
  const port = Number(options.port) || (secure ? 443 : 80);
  let addresses = [host];
  if (isIP(host) === 0) {
    clock.enter("dnsMs");
    addresses = await resolveHost(host, deadline, { servers: context.dnsServers, explainErrors: false });
  }
  clock.enter("connectMs");
  const socket = await connectToAny(addresses, port, deadline, context.addressPolicy);
  if (!secure) {
    clock.enter("firstByteMs");
    return socket;
  }
  clock.enter("tlsMs");
  try {
    const servername = isIP(host) === 0 ? host : undefined; // SNI carries names only
    // The certificate is verified as usual, against `host`.
    const secured = await ready(connectTls({ socket, host, servername, ALPNProtocols: ["http/1.1"] }), "secureConnect", deadline);
    clock.enter("firstByteMs");
    return secured;
  } catch (error) {
    socket.destroy();
    if (deadline.ended) throw error;
    // A reset during the handshake is a TLS failure too: it is how many servers refuse a TLS version or name.
    throw new TargetFailure(describeTlsError(error, host), "tls");
  }
}

// ---------------------------------------------------------------------------
// Errors as sentences

function describeTlsError(error: unknown, host: string): string {
  const code = codeOf(error);
  if (code === "ECONNRESET") return `connection reset during the TLS handshake with ${host}`;
  return `TLS handshake with ${host} failed: ${messageOf(error)}${code ? ` (${code})` : ""}`;
}

/**
 * A failure after the connection was made (or one worded where it happened),
 * and its reason. What is not HTTP, in the response or in a request the
 * client refuses to send, is protocol; a connection lost or failing in any
 * other way is connect.
 */
function describeFailure(error: unknown, phase: Phase | null): [message: string, reason: FailureReason] {
  if (error instanceof TargetFailure) return [error.message, error.reason];
  const where = phase ? ` ${PHASE_WORDS[phase]}` : "";
  const code = codeOf(error);
  switch (code) {
    case "ECONNRESET":
      return [`connection reset${where}`, "connect"];
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return [`connection closed by the target${where}`, "connect"];
    case "UND_ERR_HEADERS_OVERFLOW":
      return ["response headers too large", "protocol"];
    case "UND_ERR_RES_CONTENT_LENGTH_MISMATCH":
      return ["response body length does not match its Content-Length", "protocol"];
    case "UND_ERR_INVALID_ARG":
    case "UND_ERR_NOT_SUPPORTED":
      return [`invalid request: ${messageOf(error)}`, "protocol"];
  }
  // Not by its HPE_ code: undici 7 leaves the code of its parser's errors undefined.
  if (error instanceof errors.HTTPParserError) return [`invalid HTTP response: ${messageOf(error)}`, "protocol"];
  if (code?.startsWith("Z_") || code?.startsWith("ERR__")) return [`could not decode the response body: ${messageOf(error)}`, "protocol"];
  return [`request failed${where}: ${messageOf(error)}${code ? ` (${code})` : ""}`, "connect"];
}

const PROGRAMMER_ERRORS = new Set(["TypeError", "RangeError", "ReferenceError", "SyntaxError"]);

/**
 * Errors of JavaScript itself (or Node refusing an argument) come from a bug
 * here, not from the target: they are thrown, not reported as a failed check.
 */
function isProgrammerError(error: unknown): boolean {
  return isErrorLike(error) && PROGRAMMER_ERRORS.has(error.name);
}

function noop(): void {}
