import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { PROVIDER_TYPES, type ProviderType } from "@vigil/domain";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { startTestApi, type TestApi } from "./support/api";
import { channel } from "./support/channels";

/**
 * SendTestNotification through the API for each of the twelve provider types, every provider API
 * a local server (a real SMTP server for email): it succeeds, then reports the provider's refusal.
 */
describe("SendTestNotification for every provider type", () => {
  let api: TestApi;
  let writeKey: string;
  let provider: ProviderServer;
  let refuse = false;
  let mails = 0;
  const smtp = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onRcptTo(_address, _session, callback) {
      callback(refuse ? Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }) : undefined);
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => {
        mails += 1;
        callback();
      });
    },
  });

  beforeAll(async () => {
    provider = await startProviderServer(() => (refuse ? { status: 400, body: { error: "refused by the double" } } : { status: 200 }));
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    api = await startTestApi("pglite", {
      providerEnv: {
        PAGERDUTY_EVENTS_URL: `${provider.url}/v2/enqueue`,
        OPSGENIE_API_URL: provider.url,
        TELEGRAM_API_URL: provider.url,
        TELEGRAM_BOT_TOKEN: "123456:ABC-token",
        TWILIO_API_URL: provider.url,
        TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
        TWILIO_AUTH_TOKEN: "twilio-auth-token",
        TWILIO_SMS_FROM: "+15557122661",
        TWILIO_WHATSAPP_FROM: "+14155238886",
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      },
    });
    writeKey = (await api.workspace()).write.key;
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const blocks = (url: string): Record<ProviderType, Record<string, unknown>> => ({
    discord: { webhookUrl: `${url}/api/webhooks/123/abc` },
    email: { email: "ops@example.com" },
    slack: { webhookUrl: `${url}/services/T000/B000/XXXX` },
    pagerduty: { integrationKey: "0123456789abcdef0123456789abcdef" },
    opsgenie: { apiKey: "eb243592-faa2-4ba2-a551-1afdf565c889", region: "us" },
    webhook: { endpoint: `${url}/hook`, headers: [] },
    telegram: { chatId: "-1001234567890" },
    sms: { phoneNumber: "+15558675310" },
    whatsapp: { phoneNumber: "+15558675310" },
    google_chat: { webhookUrl: `${url}/v1/spaces/AAA/messages?key=k&token=t` },
    grafana_oncall: { webhookUrl: `${url}/integrations/v1/formatted_webhook/AbC123/` },
    ntfy: { topic: "vigil-alerts", serverUrl: url },
  });

  it.each(PROVIDER_TYPES)("%s: delivers a test message, then reports the provider's refusal", async (type) => {
    const client = api.notificationClient(writeKey);
    const { notification } = await client.createNotification({ notification: channel(type, blocks(provider.url)[type], { name: type }) });
    const id = notification!.id;
    const [requestsBefore, mailsBefore] = [provider.received.length, mails];

    refuse = false;
    expect(await client.sendTestNotification({ id })).toMatchObject({ success: true, errorMessage: "" });
    if (type === "email") expect(mails).toBe(mailsBefore + 1);
    else expect(provider.received.length).toBe(requestsBefore + 1);

    refuse = true;
    const refused = await client.sendTestNotification({ id });
    expect(refused.success).toBe(false);
    expect(refused.errorMessage).toMatch(type === "email" ? /550|mailbox unavailable/ : /HTTP 400.*refused by the double/);

    const { deliveries } = await client.listNotificationDeliveries({ id });
    expect(deliveries.map((d) => [d.event, d.outcome])).toEqual([
      ["test", "failed"],
      ["test", "delivered"],
    ]);
  });
});
