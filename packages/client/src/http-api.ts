import { ConnectError } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJson } from "@connectrpc/connect/protocol-connect";
import { parseSetCookie } from "cookie";
import { runCall, type Credentials } from "./calls.js";
import { SecondFactorRequired, VigilError } from "./errors.js";
import { SESSION_COOKIE, type CallOptions, type ResolvedOptions } from "./options.js";

export type Scope = "read" | "write";

/** GET /v1/whoami: the workspace a key belongs to (or a person acts in), and the key or the person. */
export interface Identity {
  name: string;
  slug: string;
  plan: string;
  actor:
    | { type: "apiKey"; keyId: string; scopes: Scope[] }
    | { type: "user"; userId: string; email: string; role: "owner" | "admin" | "editor" | "viewer"; scopes: Scope[] };
}

/** POST /v1/auth/sign-in: the session's token (the `vigil_session` cookie's value) and whom it signs in. */
export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: { id: string; email: string; name: string };
  workspaces: { slug: string; name: string; role: string }[];
}

/** DELETE /v1/api-key/:id: the revoked key; revoking it again keeps the first time. */
export interface RevokedApiKey {
  id: string;
  revoked: true;
  revokedAt: Date;
}

/** The plain HTTP endpoints beside the RPC services; their errors are `{"code", "message"}`, Connect's JSON error form. */
export function httpApi(config: ResolvedOptions) {
  const send = async (method: "GET" | "POST" | "DELETE", path: string, credentials: Credentials, signal: AbortSignal, body?: unknown): Promise<Response> => {
    const headers = { ...credentials, accept: "application/json", ...(body !== undefined && { "content-type": "application/json" }) };
    const res = await fetch(config.baseUrl + path, { method, signal, headers, body: body === undefined ? undefined : JSON.stringify(body) }).catch((error: unknown) => {
      if (signal.aborted) throw error;
      // fetch reports every network failure as "fetch failed"; the reason is its cause.
      const reason = (error as { cause?: { message?: string } }).cause?.message ?? String(error);
      throw new VigilError("unavailable", `cannot reach ${config.baseUrl}: ${reason}`, [], { cause: error });
    });
    if (res.ok) return res;
    const text = await res.text();
    const answer = parseJson(text) as { code?: unknown; message?: unknown } | undefined;
    // The one code of the sign-in endpoint that is not Connect's.
    if (answer?.code === "totp_required") throw new SecondFactorRequired(String(answer.message));
    const fallback = new ConnectError(text || res.statusText, codeFromHttpStatus(res.status));
    throw answer === undefined ? fallback : errorFromJson(answer as never, undefined, fallback);
  };
  const request = async (method: "GET" | "DELETE", path: string, credentials: Credentials, signal: AbortSignal): Promise<unknown> =>
    parseJson(await (await send(method, path, credentials, signal)).text());

  return {
    whoami: (options: CallOptions = {}): Promise<Identity> =>
      runCall(config, true, options, (credentials, signal) => request("GET", "/v1/whoami", credentials, signal) as Promise<Identity>),
    revokeApiKey: async (id: string, options: CallOptions = {}): Promise<RevokedApiKey> => {
      const path = `/v1/api-key/${encodeURIComponent(id)}`;
      const body = (await runCall(config, false, options, (credentials, signal) => request("DELETE", path, credentials, signal))) as { id: string; revokedAt: string };
      return { id: body.id, revoked: true, revokedAt: new Date(body.revokedAt) };
    },
    /** Needs no credentials: a client made with none can sign in, then make a client with `session: token`. */
    /** `totp`: the code of a person's second factor, or one of their recovery codes; without it such a person gets SecondFactorRequired. */
    signIn: async (credentials: { email: string; password: string; totp?: string }, options: CallOptions = {}): Promise<SignedIn> => {
      const res = await runCall(config, false, options, (none, signal) => send("POST", "/v1/auth/sign-in", none, signal, credentials), {});
      const cookie = res.headers.getSetCookie().map((line) => parseSetCookie(line)).find((c) => c.name === SESSION_COOKIE);
      if (!cookie?.value) throw new VigilError("internal", "the sign-in answer set no session cookie");
      const body = (await res.json()) as Omit<SignedIn, "token" | "expiresAt"> & { expiresAt: string };
      return { token: cookie.value, user: body.user, workspaces: body.workspaces, expiresAt: new Date(body.expiresAt) };
    },
    /** Ends the client's session on the server; never retried. */
    signOut: async (options: CallOptions = {}): Promise<void> => {
      await runCall({ ...config, apiKey: undefined }, false, options, (credentials, signal) => send("POST", "/v1/auth/sign-out", credentials, signal));
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
