import type { DeliveryEvent } from "@vigil/domain";
import { DeliveryError } from "../src/errors";
import { discord } from "../src/providers/discord";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface Embed {
  title: string;
  description: string;
  url: string;
  color: number;
  fields: { name: string; value: string }[];
  timestamp: string;
}
interface DiscordBody {
  username: string;
  allowed_mentions: { parse: string[] };
  embeds: Embed[];
}

const PATH = "/api/webhooks/123/tokensecret";
let server: ProviderServer;
let channel: Channel<"discord">;

beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 204 }));
  channel = { id: "ch1", name: "ops", type: "discord", config: { webhookUrl: `${server.url}${PATH}` } };
});
afterEach(() => server.close());

const embedText = (embed: Embed) => [embed.title, embed.description, ...embed.fields.map((f) => `${f.name}: ${f.value}`)].join("\n");
const embedLength = (embed: Embed) => embed.title.length + embed.description.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);

const COLOURS: Record<DeliveryEvent, number> = {
  "monitor.failed": 0xe01e5a,
  "monitor.degraded": 0xecb22e,
  "monitor.recovered": 0x2eb67d,
  "incident.acknowledged": 0x36c5f0,
  "monitor.certificate_expiring": 0xf2994a,
  "monitor.certificate_renewed": 0x2eb67d,
  "slo.burn_rate": 0xf2994a,
  "slo.burn_rate_ended": 0x2eb67d,
  test: 0x36c5f0,
};

describe("discord", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)(
    "executes the webhook with one embed for a %s message and takes Discord's 204",
    async (event) => {
      const message = sampleMessage(event);
      const delivered = await discord.send(message, channel, { settings: settingsFor(server.url) });

      expect(delivered).toEqual({ statusCode: 204 });
      const request = (await server.waitFor(1))[0]!;
      expect(request.method).toBe("POST");
      expect(request.url).toBe(PATH);
      expect(request.headers["content-type"]).toBe("application/json");
      const body = request.json as DiscordBody;
      expect(body.username).toBe("Vigil");
      expect(body.allowed_mentions).toEqual({ parse: [] });
      expect(body.embeds).toHaveLength(1);
      const embed = body.embeds[0]!;
      expect(Number.isInteger(embed.color)).toBe(true);
      expect(embed.color).toBe(COLOURS[event]);
      expect(embed.title).toContain("Homepage");
      expect(embed.description).toContain("Homepage");
      expect(embed.url).toBe(message.link);
      expect(embed.timestamp).toBe(message.occurredAt.toISOString());
      expectFullWording(embedText(embed), event);
    },
  );

  it("keeps every part of the embed within Discord's limits", async () => {
    const long = "x".repeat(5000);
    const message = sampleMessage("monitor.failed", {
      monitor: { id: "m", name: "n".repeat(256), kind: "http", target: `https://example.com/${long}` },
      error: `connect failed ${long}`,
    });

    await discord.send(message, channel, { settings: settingsFor(server.url) });

    const embed = ((await server.waitFor(1))[0]!.json as DiscordBody).embeds[0]!;
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    for (const field of embed.fields) {
      expect(field.name.length).toBeLessThanOrEqual(256);
      expect(field.value.length).toBeGreaterThan(0);
      expect(field.value.length).toBeLessThanOrEqual(1024);
    }
    expect(embedLength(embed)).toBeLessThanOrEqual(6000);
    expect(embed.fields.find((f) => f.name === "Error")?.value).toMatch(/^connect failed x+…$/);
  });

  it("turns Discord's 404 Unknown Webhook into a final DeliveryError with the status and the answer", async () => {
    server.answerWith(() => ({ status: 404, body: { message: "Unknown Webhook", code: 10015 } }));

    const error = await discord.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 404 });
    expect((error as DeliveryError).message).toContain("10015");
    expect((error as DeliveryError).message).not.toContain("tokensecret");
  });

  it("reads the wait of a 429 from retry_after in Discord's body", async () => {
    server.answerWith(() => ({ status: 429, body: { message: "You are being rate limited.", retry_after: 1.5, global: false } }));

    const error = await discord.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 1500 });
  });
});
