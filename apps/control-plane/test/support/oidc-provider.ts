import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the provider says about the person who signs in next. */
export type Claims = Record<string, unknown> & { email?: string; email_verified?: boolean };

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person the provider signs in at its next interaction: `sub` and their claims. */
  signInAs(sub: string, claims: Claims): void;
  /** The next interaction ends with the person declining (`error=access_denied`). */
  declineNext(): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (oidc-provider) on a loopback port, with one
 * confidential client that must use PKCE. Its login and consent are completed
 * programmatically: the interaction URL signs in the person `signInAs` named
 * and grants the scopes asked for.
 */
export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const { default: Provider } = await import("oidc-provider");
  const accounts = new Map<string, Claims>();
  let next = "";
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [clientId, clientSecret] = ["vigil-test", "test-client-secret-of-enough-length"];
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_post" }],
    pkce: { required: () => true },
    claims: { openid: ["sub", "groups"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => (accounts.has(sub) ? { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) } : undefined),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["test cookie key"] },
  });
  const callback = provider.callback();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    void (async () => {
      const { params } = await provider.interactionDetails(req, res);
      if (next === "") return provider.interactionFinished(req, res, { error: "access_denied", error_description: "the person declined" });
      const grant = new provider.Grant({ accountId: next, clientId: String(params.client_id) });
      grant.addOIDCScope(String(params.scope));
      await provider.interactionFinished(req, res, { login: { accountId: next }, consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(sub, claims) {
      accounts.set(sub, claims);
      next = sub;
    },
    declineNext() {
      next = "";
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => void server.closeAllConnections()),
  };
}

/** Cookies of one origin, as a browser would keep them across redirects. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header = () => [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

/**
 * Follows a sign-in from Vigil's start URL through the provider, as a browser
 * would, up to the provider's redirect back to Vigil: the callback's query
 * (not yet sent), and the cookie Vigil set at the start for it.
 */
export async function throughProvider(startUrl: string, issuer: string): Promise<{ query: string; cookie: string }> {
  const start = await fetch(startUrl, { redirect: "manual" });
  if (start.status !== 302) throw new Error(`start answered ${start.status}: ${await start.text()}`);
  const cookie = start.headers.getSetCookie()[0]!.split(";")[0]!;
  const jar = new CookieJar();
  let location = start.headers.get("location")!;
  for (let hops = 0; location.startsWith(issuer) || location.startsWith("/"); hops++) {
    if (hops > 10) throw new Error("too many redirects at the provider");
    const res = await fetch(new URL(location, issuer), { redirect: "manual", headers: { cookie: jar.header() } });
    jar.take(res);
    if (res.status < 300 || res.status >= 400) throw new Error(`the provider answered ${res.status}: ${await res.text()}`);
    location = res.headers.get("location")!;
  }
  return { query: new URL(location).search, cookie };
}
