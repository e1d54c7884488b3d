import { DeliveryError, parseRetryAfter } from "../src/errors";
import { post } from "../src/http";
import { settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";

let server: ProviderServer;

beforeEach(async () => {
  server = await startProviderServer();
});
afterEach(() => server.close());

const PATH = "/hook/secret-path";
const postTo = (url: string) => post(url, { json: { hello: "world" } }, { settings: settingsFor(server.url) });
const failureOf = (url: string) => postTo(url).then(
  () => {
    throw new Error("expected the post to fail");
  },
  (error: unknown) => error as DeliveryError,
);

describe("post", () => {
  it("sends JSON and gives back a 2xx answer", async () => {
    server.answerWith(() => ({ status: 202, body: { ok: true } }));

    const answer = await postTo(`${server.url}${PATH}`);

    expect(answer).toMatchObject({ status: 202, body: '{"ok":true}' });
    const request = (await server.waitFor(1))[0]!;
    expect(request).toMatchObject({ method: "POST", url: PATH, json: { hello: "world" } });
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toBe("Vigil");
  });

  it.each([500, 503, 408])("makes %i retryable", async (status) => {
    server.answerWith(() => ({ status, body: "try later" }));

    const error = await failureOf(`${server.url}${PATH}`);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: true, statusCode: status, retryAfterMs: null });
    expect(error.message).toContain("try later");
  });

  it("makes 429 retryable and honours Retry-After in seconds", async () => {
    server.answerWith(() => ({ status: 429, body: "slow down", headers: { "retry-after": "7" } }));

    expect(await failureOf(`${server.url}${PATH}`)).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 7000 });
  });

  it("honours Retry-After as an HTTP date, as the time left until it", async () => {
    const until = new Date(Math.ceil(Date.now() / 1000) * 1000 + 60_000);
    server.answerWith(() => ({ status: 429, headers: { "retry-after": until.toUTCString() } }));

    const before = Date.now();
    const error = await failureOf(`${server.url}${PATH}`);
    const after = Date.now();

    expect(error).toMatchObject({ retryable: true, statusCode: 429 });
    // Computed against the clock when the answer came, some time between these two.
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(until.getTime() - after);
    expect(error.retryAfterMs).toBeLessThanOrEqual(until.getTime() - before);
    expect(parseRetryAfter(until.toUTCString(), until.getTime() - 7_000)).toBe(7_000);
  });

  it("prefers the Retry-After header, and reads the body's wait when the provider puts it there", async () => {
    const retryAfterFromBody = (body: string) => (JSON.parse(body) as { wait: number }).wait;
    server.answerWith(() => ({ status: 429, body: { wait: 1234 } }));
    const fromBody = await post(`${server.url}${PATH}`, { json: {}, retryAfterFromBody }, { settings: settingsFor(server.url) }).catch((e: DeliveryError) => e);
    server.answerWith(() => ({ status: 429, body: { wait: 1234 }, headers: { "retry-after": "2" } }));
    const fromHeader = await post(`${server.url}${PATH}`, { json: {}, retryAfterFromBody }, { settings: settingsFor(server.url) }).catch((e: DeliveryError) => e);

    expect(fromBody).toMatchObject({ statusCode: 429, retryAfterMs: 1234 });
    expect(fromHeader).toMatchObject({ statusCode: 429, retryAfterMs: 2000 });
  });

  it.each([400, 401, 404, 410])("makes %i final", async (status) => {
    server.answerWith(() => ({ status, body: "no such hook" }));

    const error = await failureOf(`${server.url}${PATH}`);

    expect(error).toMatchObject({ retryable: false, statusCode: status });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain("no such hook");
  });

  it("names only the host in errors, never the URL's secret path or query", async () => {
    server.answerWith(() => ({ status: 404, body: "gone" }));

    const error = await failureOf(`${server.url}${PATH}?token=querysecret`);

    expect(error.message).toContain(new URL(server.url).host);
    expect(error.message).not.toContain("secret-path");
    expect(error.message).not.toContain("querysecret");
  });

  it("does not follow redirects", async () => {
    server.answerWith(() => ({ status: 302, headers: { location: "http://127.0.0.1:1/elsewhere" } }));

    expect(await failureOf(`${server.url}${PATH}`)).toMatchObject({ retryable: false, statusCode: 302 });
    expect(server.received).toHaveLength(1);
  });

  it("ends a request the server never answers with a retryable timeout", async () => {
    server.answerWith(() => ({ status: 200, hang: true }));
    const settings = settingsFor(server.url, { NOTIFICATION_TIMEOUT_SECONDS: "1" });

    const error = await post(`${server.url}${PATH}`, { json: {} }, { settings }).catch((e: DeliveryError) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: null });
    expect((error as DeliveryError).message).toContain("no answer within 1 s");
  });

  it("makes a refused connection retryable", async () => {
    const closed = await startProviderServer();
    const url = closed.url;
    await closed.close();

    expect(await failureOf(`${url}${PATH}`)).toMatchObject({ retryable: true, statusCode: null });
  });

  it("reads no more of an answer than the size cap", async () => {
    const settings = settingsFor(server.url);
    server.answerWith(() => ({ status: 200, body: "a".repeat(settings.maxResponseBytes * 4) }));

    const answer = await post(`${server.url}${PATH}`, { json: {} }, { settings });

    expect(answer.body).toHaveLength(settings.maxResponseBytes);
  });

  it("keeps an oversized error answer short in the error message", async () => {
    server.answerWith(() => ({ status: 400, body: "e".repeat(200_000) }));

    const error = await failureOf(`${server.url}${PATH}`);

    expect(error.message.length).toBeLessThan(600);
  });

  it("sends a form when given one", async () => {
    await post(`${server.url}${PATH}`, { form: new URLSearchParams({ To: "+15558675310" }) }, { settings: settingsFor(server.url) });

    const request = (await server.waitFor(1))[0]!;
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.form?.get("To")).toBe("+15558675310");
  });
});
