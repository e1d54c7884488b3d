import { Code, ConnectError } from "@connectrpc/connect";
import { PAGE_ACCESS, REQUEST_LIMITS, SESSION_COOKIE } from "@vigil/domain";
import { startTestApi, jsonOf, type TestApi, type WorkspaceKeys } from "./support/api";
import { eventually } from "../../../test/eventually";
import { signedInPerson } from "./support/people";

/** Low limits, so that a test meets them in a few calls. Per-second limits are met by calling until refused. */
const rateLimits = { apiCallsPerKeyPerSecond: 3, apiCallsPerAddressPerSecond: 6, pageViewsPerAddressPerMinute: 3 };
/** Enough calls that, at a limit of 3 or 6 per second, some land in the same second whatever the machine's speed. */
const ENOUGH_CALLS = 60;

/** Calls `call` until it answers a refusal; the refusal, or null after ENOUGH_CALLS. */
async function callUntilRefused<T>(call: () => Promise<T | null>): Promise<T | null> {
  for (let i = 0; i < ENOUGH_CALLS; i++) {
    const refusal = await call();
    if (refusal) return refusal;
  }
  return null;
}

describe("rate limits", () => {
  let api: TestApi;
  let keys: WorkspaceKeys;
  beforeAll(async () => {
    api = await startTestApi("pglite", { limits: { rateLimits } });
    keys = await api.workspace();
  });
  afterAll(() => api.close());

  it("refuses an API key over its limit with resource_exhausted and Retry-After, over Connect", async () => {
    const res = await callUntilRefused(async () => {
      const res = await api.fetch("/monitor.v1.MonitorService/ListMonitors", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": keys.read.key },
        body: "{}",
      });
      if (res.status === 200) return null;
      return res;
    });
    expect(res?.status).toBe(429);
    expect(Number(res?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = await jsonOf(res!);
    expect(body.code).toBe("resource_exhausted");
    expect(body.message).toMatch(/per second with this API key/);
  });

  it("limits a person's session as it limits a key", async () => {
    const person = await signedInPerson(api.db.prisma, api.baseUrl, keys.slug, "viewer");
    // The calls of the test before may have filled this second's count per address (6), which the session's (3) must meet first.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const res = await callUntilRefused(async () => {
      const res = await api.fetch("/monitor.v1.MonitorService/ListMonitors", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: `${SESSION_COOKIE}=${person.token}` },
        body: "{}",
      });
      return res.status === 200 ? null : res;
    });
    expect(res?.status).toBe(429);
    expect(Number(res?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await jsonOf(res!)).message).toMatch(/per second with this session/);
  });

  it("refuses over gRPC with Code.ResourceExhausted and a retry-after header", async () => {
    const client = api.client(keys.write.key, "grpc");
    const error = await callUntilRefused(() => client.listMonitors({}).then(() => null, (e: unknown) => e as ConnectError));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error?.code).toBe(Code.ResourceExhausted);
    expect(Number(error?.metadata.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("limits calls without a key per client address, before the key is looked up", async () => {
    const res = await callUntilRefused(async () => {
      const res = await api.fetch("/monitor.v1.MonitorService/ListMonitors", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return res.status === 401 ? null : res;
    });
    expect(res?.status).toBe(429);
    expect((await jsonOf(res!)).message).toMatch(/per second from this address/);
  });

  it("limits the plain /v1 endpoints the same way: 429, Retry-After and the JSON error", async () => {
    const res = await callUntilRefused(async () => {
      const res = await api.fetch("/v1/whoami", { headers: { "x-service-key": keys.legacy.key } });
      return res.status === 200 ? null : res;
    });
    expect(res?.status).toBe(429);
    expect(Number(res?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await jsonOf(res!)).toEqual({ code: "resource_exhausted", message: expect.stringMatching(/^rate limit: /) });
  });

  it("never limits /healthz", async () => {
    for (let i = 0; i < 20; i++) expect((await api.fetch("/healthz")).status).toBe(200);
  });

  it("limits views per client address and page, each page on its own", async () => {
    const view = (slug: string) => api.fetch(`/status/${slug}/summary.json`);
    for (let i = 0; i < rateLimits.pageViewsPerAddressPerMinute; i++) expect((await view("limited-page")).status).toBe(404);
    const refused = await view("limited-page");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await jsonOf(refused)).code).toBe("resource_exhausted");
    expect((await view("another-page")).status).toBe(404);
  });

  it("counts together with the other control planes of the deployment (shared Redis)", async () => {
    const other = await api.startReplica({ rateLimits });
    try {
      const path = "/status/shared-count/badge.svg";
      for (let i = 0; i < rateLimits.pageViewsPerAddressPerMinute; i++) expect((await api.fetch(path)).status).toBe(404);
      // The other control plane has seen none of these views itself: it learns of them from Redis.
      await eventually(async () => (await fetch(`${other.baseUrl}${path}`)).status === 429);
    } finally {
      await other.close();
    }
  });

  it("defaults far above what a busy legitimate client sends, and page views far above sign-in attempts", () => {
    expect(REQUEST_LIMITS.apiCallsPerKeyPerSecond).toBeGreaterThanOrEqual(50);
    expect(REQUEST_LIMITS.apiCallsPerAddressPerSecond).toBeGreaterThanOrEqual(REQUEST_LIMITS.apiCallsPerKeyPerSecond);
    const signInAttemptsPerMinute = (PAGE_ACCESS.signInAttempts * 60) / PAGE_ACCESS.signInWindowSeconds;
    expect(REQUEST_LIMITS.pageViewsPerAddressPerMinute).toBeGreaterThanOrEqual(50 * signInAttemptsPerMinute);
  });
});
