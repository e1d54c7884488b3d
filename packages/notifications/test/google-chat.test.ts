import { DeliveryError } from "../src/errors";
import { googleChat } from "../src/providers/google-chat";
import { testMessage } from "../src/test-message";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type Received, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface ChatBody {
  text: string;
  thread?: { threadKey: string };
}

const PATH = "/v1/spaces/AAAA/messages";
let server: ProviderServer;
let channel: Channel<"google_chat">;

beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 200, body: { name: "spaces/AAAA/messages/1", text: "…" } }));
  channel = { id: "ch1", name: "ops", type: "google_chat", config: { webhookUrl: `${server.url}${PATH}?key=KEY&token=TOKENsecret` } };
});
afterEach(() => server.close());

/** The text as Chat shows it: without the zero-width spaces that set its markup characters apart. */
const shown = (text: string) => text.replaceAll("\u200b", "");
const queryOf = (request: Received) => Object.fromEntries(new URL(request.url, server.url).searchParams);
const pathOf = (request: Received) => new URL(request.url, server.url).pathname;

describe("google chat", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered"] as const)(
    "posts a %s message as UTF-8 JSON into the incident's thread, keeping the webhook's key and token",
    async (event) => {
      const delivered = await googleChat.send(sampleMessage(event), channel, { settings: settingsFor(server.url) });

      expect(delivered).toEqual({ statusCode: 200 });
      const request = (await server.waitFor(1))[0]!;
      expect(request.method).toBe("POST");
      expect(pathOf(request)).toBe(PATH);
      expect(queryOf(request)).toEqual({ key: "KEY", token: "TOKENsecret", messageReplyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" });
      expect(request.headers["content-type"]).toBe("application/json; charset=UTF-8");
      const body = request.json as ChatBody;
      expect(body.thread).toEqual({ threadKey: "vigil-incident-0194f3b2-inc1" });
      expectFullWording(shown(body.text), event);
    },
  );

  it("puts the recovery in the same thread as the alert", async () => {
    const settings = settingsFor(server.url);
    await googleChat.send(sampleMessage("monitor.failed"), channel, { settings });
    await googleChat.send(sampleMessage("monitor.recovered"), channel, { settings });

    const [alert, recovery] = (await server.waitFor(2)).map((r) => (r.json as ChatBody).thread?.threadKey);
    expect(alert).toBeDefined();
    expect(recovery).toBe(alert);
  });

  it("threads the warnings about one certificate together", async () => {
    const settings = settingsFor(server.url);
    const message = sampleMessage("monitor.certificate_expiring");
    await googleChat.send(message, channel, { settings });
    await googleChat.send({ ...message, id: "evt-7", certificate: { ...message.certificate!, daysLeft: 7 } }, channel, { settings });

    const [first, second] = await server.waitFor(2);
    expect(queryOf(first!).messageReplyOption).toBe("REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
    expect((first!.json as ChatBody).thread?.threadKey).toMatch(/^vigil-certificate-0194f3b2-mon1-/);
    expect((second!.json as ChatBody).thread).toEqual((first!.json as ChatBody).thread);
    expectFullWording(shown((first!.json as ChatBody).text), "monitor.certificate_expiring");
  });

  it("sends a test message without a thread", async () => {
    const settings = settingsFor(server.url);
    await googleChat.send(sampleMessage("test"), channel, { settings });

    const request = (await server.waitFor(1))[0]!;
    expect(pathOf(request)).toBe(PATH);
    expect(queryOf(request)).toEqual({ key: "KEY", token: "TOKENsecret" });
    expect(request.headers["content-type"]).toBe("application/json; charset=UTF-8");
    const body = request.json as ChatBody;
    expect(body.thread).toBeUndefined();
    expectFullWording(shown(body.text), "test");
  });

  it("sends SendTestNotification's message for a channel without monitors", async () => {
    const settings = settingsFor(server.url);
    await googleChat.send(testMessage({ id: "ch1", name: "ops room" }, null, settings), channel, { settings });

    const body = (await server.waitFor(1))[0]!.json as ChatBody;
    expect(body.text).toContain("ops room");
    expect(body.text).toContain("https://vigil.example");
  });

  it("sets apart what Chat's format would read in user text: names show as written, mention no one and link nowhere", async () => {
    const name = "<users/all> *prod* _eu_ ~old~ `x` AT&T <https://evil.example|click>";
    const target = "https://api.example.com/a_b?x=1&y=*2*";
    const error = "timeout <5s> & *retry*";
    const message = sampleMessage("monitor.failed", { monitor: { id: "m1", name, kind: "http", target }, error });
    await googleChat.send(message, channel, { settings: settingsFor(server.url) });

    const text = ((await server.waitFor(1))[0]!.json as ChatBody).text;
    for (const read of ["<users/all>", "*prod*", "_eu_", "~old~", "`x`", "&T", "<https://evil.example|click>", "<5s>", "*retry*"]) {
      expect(text).not.toContain(read);
    }
    // Every markup character of the user's text stands between zero-width spaces; the link and the title's own stars are as sent.
    const [titleLine, ...rest] = text.split("\n");
    expect(titleLine).toMatch(/^\*DOWN: .*\*$/);
    const userText = [titleLine!.slice(1, -1), ...rest].join("\n").replaceAll(target, "");
    expect(userText.match(/(?<!\u200b)[<>&*_~`]|[<>&*_~`](?!\u200b)/g)).toBeNull();
    expect(text).toContain(target);
    expect(shown(text)).toContain(`DOWN: ${name}`);
    expect(shown(text)).toContain(`Error: ${error} (http_status)`);
  });

  it("turns Google's 400 into a final DeliveryError with the status and the answer, without the key or token", async () => {
    server.answerWith(() => ({
      status: 400,
      body: { error: { code: 400, message: "Invalid JSON payload received.", status: "INVALID_ARGUMENT" } },
    }));

    const error = await googleChat.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("INVALID_ARGUMENT");
    expect((error as DeliveryError).message).not.toContain("TOKENsecret");
  });
});
