/**
 * The HTTP check: one attempt at an http:// or https:// target. Every request
 * goes over a connection opened for it by our own connector, so that DNS,
 * TCP connect and TLS are timed on the socket itself; redirects are followed
 * here rather than by the client, so that each hop is timed the same way; the
 * response is judged by the domain's assertion rules (failedHttpAssertions).
 *
 * The client is Node's own (node:http, over the connection we opened): an
 * undici Client per request kept each finished request's objects alive
 * across young-generation collections (a third of what a check allocated),
 * which made a check thread's collection pauses, reported as latency by
 * every check whose answer arrives meanwhile, twice as long.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { isIP, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { TLSSocket } from "node:tls";
import * as zlib from "node:zlib";
import { AddressPolicy } from "@vigil/domain/address-policy";
import type { FailureReason } from "@vigil/domain/alerting";
import { failedHttpAssertions } from "@vigil/domain/assertions";
import type { CertificateInfo } from "@vigil/domain/certificates";
import { CHECK_RULES } from "@vigil/domain/check-rules";
import { effectiveTimeoutMs } from "@vigil/domain/limits";
import type { Header, HttpMonitorConfig } from "@vigil/domain/monitor-config";
import { TRACEPARENT_HEADER, traceparent, type TraceContext } from "@vigil/domain/trace-context";
import { Deadline } from "./deadline";
import { failedJsonAssertions } from "./json-body";
import { TargetFailure, codeOf, isErrorLike, messageOf } from "./errors";
import { connectToAny, resolveHost } from "./network";
import { PHASE_WORDS, PhaseClock, type AttemptOrigin, type Phase } from "./phase-clock";
import { afterReadySockets } from "./ready-sockets";
import { certificateOf, secureConnection } from "./tls";
import type { Attempt, CheckEnvironment } from "./types";

const { maxRedirects: MAX_REDIRECTS, maxBodyBytes: MAX_BODY_BYTES } = CHECK_RULES;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Sent unless the monitor sets its own: some servers refuse requests that have none. */
const USER_AGENT = "Vigil/0.1 (synthetic monitoring)";
/** Headers that describe the request body, dropped when a redirect drops the body (as the Fetch standard does). */
const BODY_HEADERS = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"]);
/** Headers not sent on to another origin: credentials must not leak to a site the target redirects to. */
const ORIGIN_BOUND_HEADERS = new Set(["authorization", "cookie", "proxy-authorization", "host"]);
/**
 * Headers that would ask for framing or a protocol the check does not do
 * (its own Content-Length and Connection: close frame every request): one
 * from the monitor fails the attempt rather than being sent and ignored.
 */
const REFUSED_HEADERS = new Set(["transfer-encoding", "keep-alive", "upgrade", "expect"]);
/** Headers of the monitor's that the client's own replace, as a browser's fetch ignores them. */
const CLIENT_OWNED_HEADERS = new Set(["connection", "content-length"]);
/**
 * What a request ended early is destroyed with. One for all, so that ending
 * a request does not build (and capture a stack for) an error each time.
 */
const REQUEST_DONE = new Error("request ended");
/** Methods whose requests carry a body by definition: sent with Content-Length: 0 when the monitor's is empty. */
const PAYLOAD_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * One attempt: the request (and its redirects, when the monitor follows
 * them), bounded as a whole by the monitor's timeout. Resolves to a failed
 * Attempt for anything the target does; rejects only on a bug here.
 */
export async function httpAttempt(config: HttpMonitorConfig, env: CheckEnvironment, trace: TraceContext | null = null): Promise<Attempt> {
  const timeoutMs = effectiveTimeoutMs(config.timeout);
  const deadline = new Deadline(timeoutMs, env.signal);
  const origin: AttemptOrigin = { began: undefined };
  const state: AttemptState = { clock: new PhaseClock(origin), statusCode: null, origin, certificate: null };
  // The attempt's time is the target's: from its first phase (not from setting up our client, which the
  // target has no part in) to its last byte or failure (not until its connection has finished closing).
  const result = (error: string | null, reason: FailureReason | null): Attempt => ({
    ok: error === null,
    latencyMs: origin.began === undefined ? 0 : (state.clock.stoppedAt ?? performance.now()) - origin.began,
    timing: state.clock.timing,
    statusCode: state.statusCode,
    error,
    reason,
    certificate: state.certificate,
  });

  try {
    const first = firstRequest(config, trace);
    const response = await fetchFollowingRedirects(first, state, {
      deadline,
      dnsServers: env.dnsServers,
      addressPolicy: env.addressPolicy ?? AddressPolicy.STRICT,
      followRedirects: config.followRedirects,
    });
    // Without status code assertions only 2xx passes (failedHttpAssertions'
    // rule), so with followRedirects off a 3xx fails unless an assertion
    // accepts it: a documented decision, the redirect itself is the answer.
    // Jobs queued by a control plane older than JSON body assertions carry none.
    const failures = [...failedHttpAssertions(response, config), ...failedJsonAssertions(response.body, config.jsonBodyAssertions ?? [])];
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
  /** The certificate of the first hop over TLS: the monitor's own URL's, not that of a site it redirects to. */
  certificate: CertificateInfo | null;
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

/** The first hop's request; `trace` (runCheck leaves it null when the monitor sets its own traceparent) adds the check's traceparent. */
function firstRequest(config: HttpMonitorConfig, trace: TraceContext | null): HopRequest {
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
  // Kept on redirects, to other origins too: it names the check's trace, not a credential.
  if (trace !== null) headers.push({ key: TRACEPARENT_HEADER, value: traceparent(trace) });
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
 * One request over a connection of its own, so it opens (and times) a fresh
 * connection and nothing is kept alive for a later attempt. The end of the
 * attempt destroys the request, which fails it wherever it is.
 */
async function send(request: HopRequest, state: AttemptState, context: HopContext): Promise<Received> {
  const { deadline } = context;
  const headers = requestHeaders(request);
  let socket: Socket | undefined;
  let outgoing: ClientRequest | undefined;
  const unsubscribe = deadline.onEnd(() => outgoing?.destroy(REQUEST_DONE));
  try {
    const connection = await openConnection(request.url, state.clock, context);
    socket = connection;
    if (connection instanceof TLSSocket) state.certificate ??= certificateOf(connection);
    const response = await new Promise<Received>((resolve, reject) => {
      const receiver = new ResponseReceiver(state, { body: request.method !== "HEAD", followRedirects: context.followRedirects }, resolve, reject);
      outgoing = httpRequest({ method: request.method, path: request.url.pathname + request.url.search, headers, createConnection: () => connection });
      receiver.listen(outgoing, connection);
      outgoing.end(request.body === "" ? undefined : request.body);
    });
    // A body cut short by the deadline may read as complete.
    deadline.throwIfEnded();
    return response;
  } finally {
    unsubscribe();
    // Closing is not part of the check: the result does not wait for it. (The socket too: a request node:http
    // refused to build never took it over.)
    outgoing?.destroy();
    socket?.destroy();
  }
}

/**
 * The request's header lines as node:http takes them (a flat list, sent as it
 * is: repeated names kept), with Host, credentials from the URL, and the
 * body's Content-Length. Throws for a header the client will not send.
 */
function requestHeaders(request: HopRequest): string[] {
  const flat: string[] = [];
  let host: string | undefined;
  let authorization = false;
  for (const { key, value } of request.headers) {
    const name = key.toLowerCase();
    if (REFUSED_HEADERS.has(name)) throw new TargetFailure(`invalid request: the ${name} header is not supported`, "protocol");
    if (CLIENT_OWNED_HEADERS.has(name)) continue;
    if (name === "host") {
      if (host !== undefined) throw new TargetFailure("invalid request: duplicate host header", "protocol");
      host = value;
    }
    if (name === "authorization") authorization = true;
    flat.push(key, value);
  }
  if (host === undefined) flat.push("host", request.url.host);
  const { username, password } = request.url;
  if ((username || password) && !authorization) {
    const credentials = `${percentDecoded(username)}:${percentDecoded(password)}`;
    flat.push("authorization", `Basic ${Buffer.from(credentials).toString("base64")}`);
  }
  if (request.body !== "" || PAYLOAD_METHODS.has(request.method)) flat.push("content-length", String(Buffer.byteLength(request.body)));
  flat.push("connection", "close");
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
 * Receives one response as node:http parses it. The clock enters transferMs
 * when the headers came off the socket and stops when the last byte did (not
 * after node:http parsed them, nor at the stream's end a tick later, nor
 * after decoding, which is ours and not the target's).
 *
 * The body is read as UTF-8 text, decoded when the monitor asked for a
 * compressed one, and cut at MAX_BODY_BYTES: reading stops there, so a huge
 * or endless body costs neither memory nor time, and the assertions see its
 * beginning.
 */
class ResponseReceiver {
  private statusCode = 0;
  private headers: Record<string, string> = {};
  private decoder: Decoder | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private lastByteAt = 0;
  /** When the socket's latest chunk was read, before node:http parses it. */
  private chunkAt = 0;
  private settled = false;
  /** The target closed its side (FIN) before the response was complete. */
  private targetClosed = false;

  constructor(
    private readonly state: AttemptState,
    private readonly wanted: Wanted,
    private readonly resolve: (response: Received) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  listen(outgoing: ClientRequest, socket: Socket): void {
    // Ahead of node:http's own listener, which parses the chunk and emits the response's events.
    socket.prependListener("data", () => (this.chunkAt = performance.now()));
    socket.once("end", () => (this.targetClosed = true));
    outgoing.on("response", (response: IncomingMessage) => this.start(response));
    outgoing.on("error", (error) => this.fail(error));
  }

  private start(response: IncomingMessage): void {
    this.lastByteAt = this.state.clock.enter("transferMs", this.chunkAt);
    const statusCode = response.statusCode ?? 0;
    this.state.statusCode = statusCode;
    this.statusCode = statusCode;
    this.headers = joinedHeaders(response.rawHeaders);
    // node:http destroys a response its connection lost before the end with ECONNRESET "aborted": say which loss it was.
    response.on("error", (error) => this.fail(response.complete ? error : this.cutShort()));
    const location = this.headers.location;
    if (this.wanted.followRedirects && REDIRECT_STATUSES.has(statusCode) && location !== undefined) return this.finish(location);
    if (!this.wanted.body) return this.finish();
    this.decoder = DECODERS.get(this.headers["content-encoding"]?.trim().toLowerCase() ?? "")?.();
    this.decoder
      ?.on("data", (chunk: Buffer) => this.keep(chunk))
      .on("end", () => this.finish())
      .on("error", (error) => this.fail(error))
      // The socket waits while the decoder catches up, as piping the body into it would.
      .on("drain", () => response.resume());
    response.on("data", (chunk: Buffer) => {
      this.lastByteAt = this.chunkAt;
      if (this.settled) return;
      if (this.decoder === undefined) this.keep(chunk);
      else if (!this.decoder.write(chunk)) response.pause();
    });
    response.on("end", () => {
      if (this.decoder === undefined) this.finish();
      else this.decoder.end();
    });
  }

  /** Why a response ended before its end: its Content-Length not met, or the connection closed or reset. */
  private cutShort(): Error {
    if (!this.targetClosed) return Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
    if (this.headers["content-length"] !== undefined) return new TargetFailure("response body length does not match its Content-Length", "protocol");
    return this.closedByTarget();
  }

  /** A connection the target closed (FIN), as a socket reports it: describeFailure words it with the phase it happened in. */
  private closedByTarget(): Error {
    return Object.assign(new Error("connection closed by the target"), { code: "EPIPE" });
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
    this.state.clock.stop(this.lastByteAt);
    this.decoder?.destroy();
    void afterReadySockets().then(() => this.resolve({ statusCode: this.statusCode, headers: this.headers, body: this.bodyText(), location }));
  }

  private bodyText(): string {
    // Most bodies come in one chunk: decoded as it is, not copied into a new Buffer first.
    return this.chunks.length === 1 ? this.chunks[0]!.toString("utf8") : Buffer.concat(this.chunks, this.size).toString("utf8");
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.decoder?.destroy();
    // node:http calls a connection lost before the answer a reset ("socket hang up"): the socket saw which it was.
    this.reject(codeOf(error) === "ECONNRESET" && this.targetClosed ? this.closedByTarget() : error);
  }
}

/** The headers as failedHttpAssertions reads them: lower-case names, repeated ones joined with ", " (all kept, unlike IncomingMessage.headers). */
function joinedHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const previous = headers[name];
    headers[name] = previous === undefined ? raw[i + 1]! : `${previous}, ${raw[i + 1]!}`;
  }
  return headers;
}

// ---------------------------------------------------------------------------
// Connections and their timing

/**
 * Resolves, connects and handshakes by itself, so each phase is timed on the
 * socket's own events. The clock then waits for the response headers:
 * firstByteMs runs from the connection being ready.
 */
async function openConnection(url: URL, clock: PhaseClock, context: HopContext): Promise<Socket> {
  const { deadline } = context;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname; // an IPv6 literal without its brackets
  const secure = url.protocol === "https:";
  const port = Number(url.port) || (secure ? 443 : 80);
  let addresses = [host];
  if (isIP(host) === 0) {
    clock.enter("dnsMs");
    addresses = await resolveHost(host, deadline, { servers: context.dnsServers, explainErrors: false });
  }
  const socket = await connectToAny(addresses, port, deadline, context.addressPolicy, () => clock.enter("connectMs"));
  if (!secure) {
    clock.enter("firstByteMs");
    return socket;
  }
  clock.enter("tlsMs");
  const secured = await secureConnection(socket, host, "http/1.1", deadline);
  clock.enter("firstByteMs");
  return secured;
}

// ---------------------------------------------------------------------------
// Errors as sentences

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
      return [`connection closed by the target${where}`, "connect"];
    case "HPE_HEADER_OVERFLOW":
      return ["response headers too large", "protocol"];
  }
  if (code !== undefined && REFUSED_REQUEST_CODES.has(code)) return [`invalid request: ${messageOf(error)}`, "protocol"];
  if (code?.startsWith("HPE_")) return [`invalid HTTP response: ${messageOf(error)}`, "protocol"];
  if (code?.startsWith("Z_") || code?.startsWith("ERR__")) return [`could not decode the response body: ${messageOf(error)}`, "protocol"];
  return [`request failed${where}: ${messageOf(error)}${code ? ` (${code})` : ""}`, "connect"];
}

const PROGRAMMER_ERRORS = new Set(["TypeError", "RangeError", "ReferenceError", "SyntaxError"]);
/** node:http's refusals of what the monitor asked to send (a header name or value, the method): TypeErrors, but the monitor's, not ours. */
const REFUSED_REQUEST_CODES = new Set(["ERR_INVALID_HTTP_TOKEN", "ERR_INVALID_CHAR", "ERR_HTTP_INVALID_HEADER_VALUE", "ERR_UNESCAPED_CHARACTERS"]);

/**
 * Errors of JavaScript itself (or Node refusing an argument) come from a bug
 * here, not from the target: they are thrown, not reported as a failed check.
 */
function isProgrammerError(error: unknown): boolean {
  return isErrorLike(error) && PROGRAMMER_ERRORS.has(error.name) && !REFUSED_REQUEST_CODES.has(codeOf(error) ?? "");
}
