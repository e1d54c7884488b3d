import { ConnectError } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJson } from "@connectrpc/connect/protocol-connect";
import { runCall } from "./calls.js";
import { VigilError } from "./errors.js";
import { API_KEY_HEADER, type CallOptions, type ResolvedOptions } from "./options.js";

export type Scope = "read" | "write";

/** GET /v1/whoami: the workspace a key belongs to, and the key itself. */
export interface Identity {
  name: string;
  slug: string;
  plan: string;
  actor: { type: "apiKey"; keyId: string; scopes: Scope[] };
}

/** DELETE /v1/api-key/:id: the revoked key; revoking it again keeps the first time. */
export interface RevokedApiKey {
  id: string;
  revoked: true;
  revokedAt: Date;
}

/** The plain HTTP endpoints beside the RPC services; their errors are `{"code", "message"}`, Connect's JSON error form. */
export function httpApi(config: ResolvedOptions) {
  const request = async (method: "GET" | "DELETE", path: string, apiKey: string, signal: AbortSignal): Promise<unknown> => {
    const headers = { [API_KEY_HEADER]: apiKey, accept: "application/json" };
    const res = await fetch(config.baseUrl + path, { method, signal, headers }).catch((error: unknown) => {
      if (signal.aborted) throw error;
      // fetch reports every network failure as "fetch failed"; the reason is its cause.
      const reason = (error as { cause?: { message?: string } }).cause?.message ?? String(error);
      throw new VigilError("unavailable", `cannot reach ${config.baseUrl}: ${reason}`, [], { cause: error });
    });
    const text = await res.text();
    const body = parseJson(text);
    if (res.ok) return body;
    const fallback = new ConnectError(text || res.statusText, codeFromHttpStatus(res.status));
    throw body === undefined ? fallback : errorFromJson(body as never, undefined, fallback);
  };

  return {
    whoami: (options: CallOptions = {}): Promise<Identity> =>
      runCall(config, true, options, (key, signal) => request("GET", "/v1/whoami", key, signal) as Promise<Identity>),
    revokeApiKey: async (id: string, options: CallOptions = {}): Promise<RevokedApiKey> => {
      const path = `/v1/api-key/${encodeURIComponent(id)}`;
      const body = (await runCall(config, false, options, (key, signal) => request("DELETE", path, key, signal))) as { id: string; revokedAt: string };
      return { id: body.id, revoked: true, revokedAt: new Date(body.revokedAt) };
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
