import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { PROVIDER_TYPES } from "@vigil/domain";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { startTestApi, type TestApi } from "./support/api";
import { channel, localBlocks, localProviderEnv } from "./support/channels";

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
      providerEnv: localProviderEnv(provider.url, smtpPort),
    });
    writeKey = (await api.workspace()).write.key;
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });


  it.each(PROVIDER_TYPES)("%s: delivers a test message, then reports the provider's refusal", async (type) => {
    const client = api.notificationClient(writeKey);
    const { notification } = await client.createNotification({ notification: channel(type, localBlocks(provider.url)[type], { name: type }) });
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
