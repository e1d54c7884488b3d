import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { WORKSPACE_HEADER } from "@vigil/domain/accounts";

const WORKSPACE_KEY = "vigil.workspace";

/** The workspace the person acts in: the SSO callback's `?workspace=`, else the last one chosen here. */
export const chosenWorkspace = {
  get: (): string | null => localStorage.getItem(WORKSPACE_KEY),
  set: (slug: string) => localStorage.setItem(WORKSPACE_KEY, slug),
  clear: () => localStorage.removeItem(WORKSPACE_KEY),
};

/** Every RPC names the chosen workspace; without one the API takes the person's first. */
const withWorkspace: Interceptor = (next) => (req) => {
  const slug = chosenWorkspace.get();
  if (slug) req.header.set(WORKSPACE_HEADER, slug);
  return next(req);
};

// Same origin: the session cookie goes with every call, and Connect's JSON POST is what the API's origin check expects.
export const transport = createConnectTransport({ baseUrl: location.origin, interceptors: [withWorkspace] });

/** An answer of the API: a message, and the rule broken per field where the message names fields. */
export interface Refusal {
  code: string;
  message: string;
  fields: Record<string, string>;
}

/**
 * The API names a field before its rule ("email: must be an email address"),
 * several joined by "; ", the same for the HTTP routes and the RPCs.
 */
export function refusalOf(code: string, message: string): Refusal {
  const fields = Object.fromEntries(fieldRulesOf(message).map(([path, rule]) => [path.split(".").pop()!, rule]));
  return { code, message, fields };
}

/** The fields a refusal names, by their whole path in the request (`monitor.headers[0].key`), with the rule each breaks. */
export function fieldRulesOf(message: string): [path: string, rule: string][] {
  return message.split("; ").flatMap((part) => {
    const match = /^([A-Za-z][\w.[\]]*): (.+)$/.exec(part);
    return match ? [[match[1]!, match[2]!] as [string, string]] : [];
  });
}

export const refusalOfError = (error: unknown): Refusal =>
  error instanceof ConnectError
    ? refusalOf(Code[error.code], error.rawMessage)
    : refusalOf("unavailable", "The service could not be reached. Try again in a moment.");

/** POST to one of the /v1/auth/* routes: the JSON answer, or the API's refusal. */
export async function authPost<T = Record<string, unknown>>(path: string, body: unknown): Promise<{ ok: true; body: T } | { ok: false; refusal: Refusal }> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (error) {
    return { ok: false, refusal: refusalOfError(error) };
  }
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.ok) return { ok: true, body: answer as T };
  return { ok: false, refusal: refusalOf(String(answer.code ?? res.status), String(answer.message ?? res.statusText)) };
}
