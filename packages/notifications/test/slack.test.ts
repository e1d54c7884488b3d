import type { DeliveryEvent } from "@vigil/domain";
import { DeliveryError } from "../src/errors";
import { slack } from "../src/providers/slack";
import { summary } from "../src/text";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface SlackBody {
  text: string;
  attachments: { color: string; blocks: { type: string; text?: { type: string; text: string }; fields?: { type: string; text: string }[] }[] }[];
}

const PATH = "/services/T000/B000/XXXXsecret";
let server: ProviderServer;
let channel: Channel<"slack">;

beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 200, body: "ok", headers: { "content-type": "text/html" } }));
  channel = { id: "ch1", name: "ops", type: "slack", config: { webhookUrl: `${server.url}${PATH}` } };
});
afterEach(() => server.close());

/** Everything the attachment shows, with its fields read as "Label: value" lines. */
function shownText(body: SlackBody): string {
  return body.attachments[0]!.blocks
    .flatMap((block) => [block.text?.text ?? "", ...(block.fields ?? []).map((field) => field.text.replace(/^\*(.+?)\*\n/, "$1: "))])
    .join("\n");
}

const COLOURS: Record<DeliveryEvent, string> = {
  "monitor.failed": "#e01e5a",
  "monitor.degraded": "#ecb22e",
  "monitor.recovered": "#2eb67d",
  "incident.acknowledged": "#36c5f0",
  "monitor.certificate_expiring": "#f2994a",
  "monitor.certificate_renewed": "#2eb67d",
  "slo.burn_rate": "#f2994a",
  "slo.burn_rate_ended": "#2eb67d",
  test: "#36c5f0",
};

describe("slack", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)(
    "posts a %s message to the webhook as JSON with a fallback text and a coloured attachment",
    async (event) => {
      const message = sampleMessage(event);
      const delivered = await slack.send(message, channel, { settings: settingsFor(server.url) });

      expect(delivered).toEqual({ statusCode: 200 });
      const request = (await server.waitFor(1))[0]!;
      expect(request.method).toBe("POST");
      expect(request.url).toBe(PATH);
      expect(request.headers["content-type"]).toBe("application/json");
      const body = request.json as SlackBody;
      expect(body.text).toBe(summary(message));
      expect(body.attachments).toHaveLength(1);
      expect(body.attachments[0]!.color).toBe(COLOURS[event]);
      for (const block of body.attachments[0]!.blocks) {
        expect(block.type).toBe("section");
        if (block.text) expect(block.text.text.length).toBeLessThanOrEqual(3000);
        expect((block.fields ?? []).length).toBeLessThanOrEqual(10);
        for (const field of block.fields ?? []) expect(field.type).toBe("mrkdwn");
      }
      expectFullWording(shownText(body), event);
    },
  );

  it("escapes Slack's control characters so a monitor name cannot mention @channel", async () => {
    const message = sampleMessage("monitor.failed", {
      monitor: { id: "m", name: "<!channel> A&B", kind: "http", target: "https://example.com" },
    });

    await slack.send(message, channel, { settings: settingsFor(server.url) });

    const body = (await server.waitFor(1))[0]!.json as SlackBody;
    expect(shownText(body)).toContain("&lt;!channel&gt; A&amp;B");
    expect(shownText(body)).not.toContain("<!channel>");
  });

  it("turns Slack's 404 channel_not_found into a final DeliveryError with the status and the answer, without the webhook URL", async () => {
    server.answerWith(() => ({ status: 404, body: "channel_not_found" }));

    const error = await slack.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 404 });
    expect((error as DeliveryError).message).toContain("channel_not_found");
    expect((error as DeliveryError).message).not.toContain("XXXXsecret");
  });
});
