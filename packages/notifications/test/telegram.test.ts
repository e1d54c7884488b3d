import { DeliveryError } from "../src/errors";
import { telegram } from "../src/providers/telegram";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface SendMessage {
  chat_id: string;
  text: string;
  parse_mode: string;
  link_preview_options: { is_disabled: boolean };
}

const TOKEN = "123456:ABC-token";
const SENT = { status: 200, body: { ok: true, result: { message_id: 7, chat: { id: -1001234567890, type: "supergroup" }, date: 1777629600, text: "…" } } };
let server: ProviderServer;
const channel: Channel<"telegram"> = { id: "ch1", name: "ops chat", type: "telegram", config: { chatId: "-1001234567890" } };

beforeEach(async () => {
  server = await startProviderServer(() => SENT);
});
afterEach(() => server.close());

/** The text as the chat shows it: Telegram's HTML tags dropped, its entities read. */
const shown = (html: string) =>
  html.replace(/<\/?b>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

async function sentMessage(): Promise<SendMessage> {
  const request = (await server.waitFor(1))[0]!;
  expect(request.method).toBe("POST");
  expect(request.url).toBe(`/bot${TOKEN}/sendMessage`);
  expect(request.headers["content-type"]).toBe("application/json");
  return request.json as SendMessage;
}

describe("telegram", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)(
    "sends a %s message to the chat as HTML with the bot token in the path and no link preview",
    async (event) => {
      expect(await telegram.send(sampleMessage(event), channel, { settings: settingsFor(server.url) })).toEqual({ statusCode: 200 });

      const body = await sentMessage();
      expect(body).toMatchObject({ chat_id: "-1001234567890", parse_mode: "HTML", link_preview_options: { is_disabled: true } });
      expect(body.text).toMatch(/^<b>(DOWN|DEGRADED|RECOVERED|CERTIFICATE EXPIRING|CERTIFICATE RENEWED|SLO BURNING|SLO BURN ENDED|TEST): Homepage<\/b>\n/);
      expectFullWording(shown(body.text), event);
    },
  );

  it("escapes <, > and & in every user-supplied text, leaving only its own <b> tags", async () => {
    const message = sampleMessage("monitor.failed", {
      monitor: { id: "m", name: "<i>A&B</i>", kind: "http", target: "https://example.com/?a=1&b=<2>" },
      error: "unexpected <html> & more",
    });

    await telegram.send(message, channel, { settings: settingsFor(server.url) });

    const { text } = await sentMessage();
    expect(text).toContain("&lt;i&gt;A&amp;B&lt;/i&gt;");
    expect(text).toContain("https://example.com/?a=1&amp;b=&lt;2&gt;");
    expect(text).toContain("unexpected &lt;html&gt; &amp; more");
    expect(text.replace(/<\/?b>/g, "")).not.toMatch(/[<>]|&(?!(lt|gt|amp|quot|#39);)/);
  });

  it("keeps the shown text within Telegram's 4096 characters", async () => {
    const message = sampleMessage("monitor.failed", { error: "<&>".repeat(3000) });

    await telegram.send(message, channel, { settings: settingsFor(server.url) });

    const { text } = await sentMessage();
    expect(shown(text).length).toBeLessThanOrEqual(4096);
    expect(text).not.toMatch(/&[a-z]*$/);
  });

  it("turns Telegram's 400 {ok:false} into a final DeliveryError carrying the status and Telegram's answer, without the token", async () => {
    server.answerWith(() => ({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } }));

    const error = await telegram.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("Bad Request: chat not found");
    expect((error as DeliveryError).message).not.toContain(TOKEN);
  });

  it("turns flood control (429) into a retryable DeliveryError with parameters.retry_after as the wait", async () => {
    server.answerWith(() => ({
      status: 429,
      body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 17", parameters: { retry_after: 17 } },
    }));

    const error = await telegram.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 17_000 });
  });

  it("names TELEGRAM_BOT_TOKEN when it is unset, and then sends nothing", async () => {
    const settings = settingsFor(server.url, { TELEGRAM_BOT_TOKEN: "" });
    expect(telegram.missingSettings(settings)).toEqual(["TELEGRAM_BOT_TOKEN"]);
    expect(telegram.missingSettings(settingsFor(server.url))).toEqual([]);

    const error = await telegram.send(sampleMessage("monitor.failed"), channel, { settings }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: false });
    expect((error as DeliveryError).message).toContain("TELEGRAM_BOT_TOKEN");
    expect(server.received).toHaveLength(0);
  });
});
