import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { PROVIDER_TYPES, blockName, type ProviderType } from "@vigil/domain";
import { MonitorService, Periodicity } from "@vigil/proto";
import type { Notification, NotificationService } from "@vigil/proto/notification";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { expectRefused } from "./support/codes";
import { EVERY_PROVIDER_ENV, VALID_BLOCKS, channel, type NotificationInit } from "./support/channels";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
const fingerprint = (id: string, value: string) => createHash("sha256").update(`${id}:${value}`).digest("hex").slice(0, 16);
const blockOf = (notification: Notification | undefined) => notification?.provider.value as unknown as Record<string, unknown>;

/** A domain of exactly `length` characters, in DNS labels of at most 63. */
const domainOf = (length: number) => {
  const labels: string[] = [];
  let left = length - 4;
  while (left > 0) {
    const size = Math.min(63, left);
    labels.push("a".repeat(size));
    left -= size + 1;
  }
  const domain = `${labels.join(".")}.com`;
  return domain.length === length ? domain : `b${domain}`;
};
const urlOf = (length: number) => `https://hooks.example.com/${"p".repeat(length - "https://hooks.example.com/".length)}`;
const headers = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `x-h${i}`, value: "v" }));

describe.each(BACKENDS)("notification channels on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof NotificationService>;
  let monitors: Client<typeof MonitorService>;
  let monitorIds: string[];
  let foreignMonitorId: string;

  const newMonitor = async (client: Client<typeof MonitorService>, name = "m") =>
    (await client.createTCPMonitor({ monitor: { name, uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;

  beforeAll(async () => {
    api = await startTestApi(backend, { providerEnv: EVERY_PROVIDER_ENV });
    const keys = await api.workspace();
    client = api.notificationClient(keys.write.key);
    monitors = api.client(keys.write.key);
    monitorIds = [await newMonitor(monitors, "first"), await newMonitor(monitors, "second")];
    foreignMonitorId = await newMonitor(api.client((await api.workspace()).write.key), "theirs");
  });
  afterAll(() => api.close());

  /** Every channel and link row, to show that a refused request wrote nothing. */
  const snapshot = () =>
    api.db.prisma.notificationChannel.findMany({ orderBy: { id: "asc" }, include: { monitors: { orderBy: { monitorId: "asc" } } } });

  /** The call fails with this code and message, and writes nothing. */
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);

  const createChannel = async (notification: NotificationInit) => (await client.createNotification({ notification })).notification!;
  /** The channel as the delivery worker reads it, secrets decrypted. */
  const storedChannel = async (id: string) => (await api.notifications.repository.findForDelivery([id])).get(id);

  describe("reminderMinutes", () => {
    it("is 0 by default, takes 0 to 1440, refuses anything else naming the field, and changes only when sent or masked", async () => {
      const plain = await createChannel(channel("slack"));
      expect(plain.reminderMinutes).toBe(0);
      const reminding = await createChannel(channel("slack", VALID_BLOCKS.slack, { reminderMinutes: 1440 }));
      expect((await client.getNotification({ id: reminding.id })).notification!.reminderMinutes).toBe(1440);
      for (const bad of [1441, -1]) {
        await refused(
          () => client.createNotification({ notification: channel("slack", VALID_BLOCKS.slack, { reminderMinutes: bad }) }),
          Code.InvalidArgument,
          "notification.reminderMinutes: must be an integer from 0 to 1440",
        );
        await refused(
          () => client.updateNotification({ id: reminding.id, notification: { reminderMinutes: bad } }),
          Code.InvalidArgument,
          "notification.reminderMinutes: must be an integer from 0 to 1440",
        );
      }
      // Renaming alone keeps the reminders; a mask naming reminder_minutes sets what is sent, 0 when left out.
      await client.updateNotification({ id: reminding.id, notification: { name: "renamed" } });
      expect((await client.getNotification({ id: reminding.id })).notification).toMatchObject({ name: "renamed", reminderMinutes: 1440 });
      await client.updateNotification({ id: reminding.id, notification: { reminderMinutes: 15 } });
      expect((await client.getNotification({ id: reminding.id })).notification!.reminderMinutes).toBe(15);
      await client.updateNotification({ id: reminding.id, notification: {}, updateMask: mask("reminder_minutes") });
      expect((await client.listNotifications({})).notifications.find((n) => n.id === reminding.id)).toMatchObject({ name: "renamed", reminderMinutes: 0 });
    });
  });

  describe("create", () => {
    it.each(PROVIDER_TYPES)("stores a %s channel and answers it with its provider type, block and links", async (type) => {
      const created = await createChannel(channel(type, VALID_BLOCKS[type], { name: `a ${type} channel`, monitorIds }));
      expect(created).toMatchObject({ name: `a ${type} channel`, providerType: type, monitorIds: [...monitorIds].sort() });
      expect(created.provider.case).toBe(blockName(type));
      expect(created.id).toMatch(/\S/);
      expect(created.createdAt).toBeDefined();
      const got = (await client.getNotification({ id: created.id })).notification!;
      expect(got).toEqual(created);
    });

    it("takes provider_type when it names the block, and fills it in when left out", async () => {
      expect((await createChannel(channel("slack", undefined, { providerType: "slack" }))).providerType).toBe("slack");
      expect((await createChannel(channel("google_chat"))).providerType).toBe("google_chat");
    });

    it("keeps a webhook's headers and an ntfy channel's optional fields", async () => {
      const webhook = await createChannel(channel("webhook", { endpoint: "http://127.0.0.1:9/hook", headers: headers(20) }));
      expect(blockOf(webhook)).toMatchObject({ endpoint: "http://127.0.0.1:9/hook", headers: headers(20) });
      const ntfy = await createChannel(channel("ntfy", { topic: "alerts" }));
      expect(blockOf(ntfy)).toMatchObject({ topic: "alerts", serverUrl: "", token: "" });
      expect(ntfy.secretFingerprints).toEqual({});
    });

    it("refuses a request without a notification, without a block, or with provider_type alone", async () => {
      await refused(() => client.createNotification({}), Code.InvalidArgument, "notification: is required");
      await refused(() => client.createNotification({ notification: { name: "x" } }), Code.InvalidArgument, "notification.provider: is required");
      await refused(
        () => client.createNotification({ notification: { providerType: "slack" } }),
        Code.InvalidArgument,
        "notification.slack: is required: providerType is slack",
      );
      await refused(
        () => client.createNotification({ notification: { providerType: "teams" } }),
        Code.InvalidArgument,
        "notification.providerType: must be one of discord, email, slack",
      );
    });

    it("refuses a provider_type that does not match the block, naming notification.providerType", async () => {
      await refused(
        () => client.createNotification({ notification: channel("slack", undefined, { providerType: "discord" }) }),
        Code.InvalidArgument,
        "notification.providerType: must match the provider block (slack)",
      );
    });

    it("names every broken rule at once", async () => {
      await refused(
        () => client.createNotification({ notification: channel("opsgenie", { apiKey: "", region: "de" }, { name: "n".repeat(257) }) }),
        Code.InvalidArgument,
        "notification.name: must be at most 256 characters; notification.opsgenie.apiKey: must not be empty; notification.opsgenie.region: must be one of us, eu",
      );
    });

    const longEmail = (length: number) => `o@${domainOf(length - 2)}`;
    // Rows as objects: jest.each passes an array row as arguments, and a missing last one would become `done`.
    const accepted: { what: string; type: ProviderType; fields: Record<string, unknown>; extra?: NotificationInit }[] = [
      { what: "a name of 256 characters", type: "slack", fields: VALID_BLOCKS.slack, extra: { name: "n".repeat(256) } },
      { what: "a URL of 2048 characters", type: "discord", fields: { webhookUrl: urlOf(2048) } },
      { what: "an http:// URL", type: "grafana_oncall", fields: { webhookUrl: "http://oncall.internal/integrations/v1/formatted_webhook/x/" } },
      { what: "20 webhook headers", type: "webhook", fields: { endpoint: "https://example.com/", headers: headers(20) } },
      { what: "an email address of 254 characters", type: "email", fields: { email: longEmail(254) } },
      { what: "an E.164 number of 15 digits", type: "sms", fields: { phoneNumber: "+123456789012345" } },
      { what: "an E.164 number of 2 digits", type: "whatsapp", fields: { phoneNumber: "+12" } },
      { what: "opsgenie region us", type: "opsgenie", fields: { apiKey: "k", region: "us" } },
      { what: "opsgenie region eu", type: "opsgenie", fields: { apiKey: "k", region: "eu" } },
      { what: "a key of 1 character", type: "pagerduty", fields: { integrationKey: "k" } },
      { what: "a key of 1024 characters", type: "pagerduty", fields: { integrationKey: "k".repeat(1024) } },
      { what: "a token of 1024 characters", type: "ntfy", fields: { topic: "t", token: "t".repeat(1024) } },
      { what: "an ntfy topic of 64 characters", type: "ntfy", fields: { topic: "t".repeat(64) } },
      { what: "a Telegram chat id of 256 characters", type: "telegram", fields: { chatId: "c".repeat(256) } },
    ];
    it.each(accepted)("accepts $what", async ({ type, fields, extra }) => {
      const created = await createChannel(channel(type, fields, extra));
      expect(created.providerType).toBe(type);
    });

    const block = (type: ProviderType) => `notification.${blockName(type)}`;
    const refusedInput: { what: string; type: ProviderType; fields: Record<string, unknown>; message: string; extra?: NotificationInit }[] = [
      { what: "a name of 257 characters", type: "slack", fields: VALID_BLOCKS.slack, message: "notification.name: must be at most 256 characters", extra: { name: "n".repeat(257) } },
      { what: "a URL of 2049 characters", type: "discord", fields: { webhookUrl: urlOf(2049) }, message: `${block("discord")}.webhookUrl: must be at most 2048 characters` },
      { what: "a relative URL", type: "slack", fields: { webhookUrl: "/services/T/B/x" }, message: `${block("slack")}.webhookUrl: must be an absolute http:// or https:// URL` },
      { what: "an ftp URL", type: "google_chat", fields: { webhookUrl: "ftp://chat.example.com/x" }, message: `${block("google_chat")}.webhookUrl: must be an absolute http:// or https:// URL` },
      { what: "a URL that is not one", type: "grafana_oncall", fields: { webhookUrl: "oncall" }, message: `${block("grafana_oncall")}.webhookUrl: must be an absolute http:// or https:// URL` },
      { what: "an empty webhook URL", type: "discord", fields: { webhookUrl: "" }, message: `${block("discord")}.webhookUrl: must not be empty` },
      { what: "a webhook endpoint that is not a URL", type: "webhook", fields: { endpoint: "example.com/hook" }, message: "notification.webhook.endpoint: must be an absolute http:// or https:// URL" },
      { what: "21 webhook headers", type: "webhook", fields: { endpoint: "https://example.com/", headers: headers(21) }, message: "notification.webhook.headers: must have at most 20 entries" },
      { what: "a header name with a space", type: "webhook", fields: { endpoint: "https://example.com/", headers: [{ key: "x team", value: "v" }] }, message: "notification.webhook.headers[0].key: must be a valid HTTP header name" },
      { what: "an empty header name", type: "webhook", fields: { endpoint: "https://example.com/", headers: [{ key: "", value: "v" }] }, message: "notification.webhook.headers[0].key: must not be empty" },
      { what: "a header value with a line break", type: "webhook", fields: { endpoint: "https://example.com/", headers: [{ key: "x", value: "a\r\nb: c" }] }, message: "notification.webhook.headers[0].value: must not contain line breaks" },
      { what: "an email address of 255 characters", type: "email", fields: { email: longEmail(255) }, message: "notification.email.email: must be at most 254 characters" },
      { what: "an email address without a domain", type: "email", fields: { email: "ops@" }, message: "notification.email.email: must be an email address" },
      { what: "something that is no email address", type: "email", fields: { email: "ops.example.com" }, message: "notification.email.email: must be an email address" },
      { what: "an empty email address", type: "email", fields: { email: "" }, message: "notification.email.email: must not be empty" },
      { what: "a phone number without +", type: "sms", fields: { phoneNumber: "15558675310" }, message: "notification.sms.phoneNumber: must be an E.164 phone number" },
      { what: "a phone number of 16 digits", type: "sms", fields: { phoneNumber: "+1234567890123456" }, message: "notification.sms.phoneNumber: must be an E.164 phone number" },
      { what: "a phone number with a leading 0", type: "whatsapp", fields: { phoneNumber: "+0155586753" }, message: "notification.whatsapp.phoneNumber: must be an E.164 phone number" },
      { what: "a phone number with spaces", type: "whatsapp", fields: { phoneNumber: "+1 555 867 5310" }, message: "notification.whatsapp.phoneNumber: must be an E.164 phone number" },
      { what: "an empty phone number", type: "sms", fields: { phoneNumber: "" }, message: "notification.sms.phoneNumber: must not be empty" },
      { what: "opsgenie region de", type: "opsgenie", fields: { apiKey: "k", region: "de" }, message: "notification.opsgenie.region: must be one of us, eu" },
      { what: "opsgenie region US", type: "opsgenie", fields: { apiKey: "k", region: "US" }, message: "notification.opsgenie.region: must be one of us, eu" },
      { what: "no opsgenie region", type: "opsgenie", fields: { apiKey: "k" }, message: "notification.opsgenie.region: must be one of us, eu" },
      { what: "an empty opsgenie key", type: "opsgenie", fields: { apiKey: "", region: "us" }, message: "notification.opsgenie.apiKey: must not be empty" },
      { what: "an opsgenie key of 1025 characters", type: "opsgenie", fields: { apiKey: "k".repeat(1025), region: "us" }, message: "notification.opsgenie.apiKey: must be at most 1024 characters" },
      { what: "an empty PagerDuty key", type: "pagerduty", fields: { integrationKey: "" }, message: "notification.pagerduty.integrationKey: must not be empty" },
      { what: "a PagerDuty key of 1025 characters", type: "pagerduty", fields: { integrationKey: "k".repeat(1025) }, message: "notification.pagerduty.integrationKey: must be at most 1024 characters" },
      { what: "an ntfy token of 1025 characters", type: "ntfy", fields: { topic: "t", token: "t".repeat(1025) }, message: "notification.ntfy.token: must be at most 1024 characters" },
      { what: "an ntfy topic of 65 characters", type: "ntfy", fields: { topic: "t".repeat(65) }, message: "notification.ntfy.topic: must be at most 64 characters" },
      { what: "an ntfy topic with a slash", type: "ntfy", fields: { topic: "a/b" }, message: "notification.ntfy.topic: must be letters, digits, - and _ only" },
      { what: "an empty ntfy topic", type: "ntfy", fields: { topic: "" }, message: "notification.ntfy.topic: must not be empty" },
      { what: "an ntfy server that is not a URL", type: "ntfy", fields: { topic: "t", serverUrl: "ntfy.sh" }, message: "notification.ntfy.serverUrl: must be an absolute http:// or https:// URL" },
      { what: "an empty Telegram chat id", type: "telegram", fields: { chatId: "" }, message: "notification.telegram.chatId: must not be empty" },
      { what: "a Telegram chat id of 257 characters", type: "telegram", fields: { chatId: "c".repeat(257) }, message: "notification.telegram.chatId: must be at most 256 characters" },
    ];
    it.each(refusedInput)("refuses $what, naming the field and rule, and writes nothing", async ({ type, fields, message, extra }) => {
      await refused(() => client.createNotification({ notification: channel(type, fields, extra) }), Code.InvalidArgument, message);
    });

    it("links only monitors of the caller's workspace, naming an unknown or foreign id by its index", async () => {
      await refused(
        () => client.createNotification({ notification: channel("slack", undefined, { monitorIds: [monitorIds[0]!, "no-such-monitor"] }) }),
        Code.InvalidArgument,
        "notification.monitorIds[1]: no monitor no-such-monitor in this workspace",
      );
      await refused(
        () => client.createNotification({ notification: channel("slack", undefined, { monitorIds: [foreignMonitorId] }) }),
        Code.InvalidArgument,
        `notification.monitorIds[0]: no monitor ${foreignMonitorId} in this workspace`,
      );
      await refused(
        () => client.createNotification({ notification: channel("slack", undefined, { monitorIds: [monitorIds[0]!, monitorIds[0]!] }) }),
        Code.InvalidArgument,
        `notification.monitorIds[1]: must not repeat ${monitorIds[0]}`,
      );
      await refused(
        () => client.createNotification({ notification: channel("slack", undefined, { monitorIds: [""] }) }),
        Code.InvalidArgument,
        "notification.monitorIds[0]: must not be empty",
      );
    });
  });

  describe("secrets", () => {
    const SLACK_URL = "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstuvwx";

    it("answers sensitive values redacted: a URL as scheme and host, a key of 16 or more as its last 4 characters", async () => {
      const slack = await createChannel(channel("slack", { webhookUrl: `${SLACK_URL}?token=abc` }));
      expect(blockOf(slack)).toEqual(expect.objectContaining({ webhookUrl: "https://hooks.slack.com/…" }));
      const port = await createChannel(channel("discord", { webhookUrl: "http://127.0.0.1:8125/api/webhooks/1/x" }));
      expect(blockOf(port)).toEqual(expect.objectContaining({ webhookUrl: "http://127.0.0.1:8125/…" }));
      const pagerduty = await createChannel(channel("pagerduty", { integrationKey: "0123456789abcdefWXYZ" }));
      expect(blockOf(pagerduty)).toEqual(expect.objectContaining({ integrationKey: "…WXYZ" }));
      const sixteen = await createChannel(channel("opsgenie", { apiKey: "0123456789abWXYZ", region: "us" }));
      expect(blockOf(sixteen)).toEqual(expect.objectContaining({ apiKey: "…WXYZ", region: "us" }));
      const fifteen = await createChannel(channel("ntfy", { topic: "t", token: "123456789abWXYZ" }));
      expect(blockOf(fifteen)).toEqual(expect.objectContaining({ token: "…" }));
      // Fields that are not sensitive are answered as they are.
      const email = await createChannel(channel("email", { email: "ops@example.com" }));
      expect(blockOf(email)).toEqual(expect.objectContaining({ email: "ops@example.com" }));
      const listed = (await client.listNotifications({ limit: 100 })).notifications.find((n) => n.id === pagerduty.id);
      expect(blockOf(listed)).toEqual(expect.objectContaining({ integrationKey: "…WXYZ" }));
    });

    it("fingerprints each stored secret over its channel id", async () => {
      const created = await createChannel(channel("ntfy", { topic: "t", token: "tk_secret_value_123" }));
      expect(created.secretFingerprints).toEqual({ token: fingerprint(created.id, "tk_secret_value_123") });
      const other = await createChannel(channel("ntfy", { topic: "t", token: "tk_secret_value_123" }));
      expect(other.secretFingerprints.token).not.toBe(created.secretFingerprints.token);
      const slack = await createChannel(channel("slack", { webhookUrl: SLACK_URL }));
      expect(slack.secretFingerprints).toEqual({ webhookUrl: fingerprint(slack.id, SLACK_URL) });
      expect((await createChannel(channel("telegram"))).secretFingerprints).toEqual({});
    });

    it("keeps no secret in plain text in the database", async () => {
      const key = "pd-key-0123456789-abcdefghij";
      const pagerduty = await createChannel(channel("pagerduty", { integrationKey: key }));
      const webhook = await client.createNotification({ notification: channel("webhook") });
      const rows = await api.db.prisma.notificationChannel.findMany({ where: { id: { in: [pagerduty.id, webhook.notification!.id] } } });
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(webhook.signingSecret);
      const pagerdutyRow = rows.find((row) => row.id === pagerduty.id)!;
      expect(pagerdutyRow.settings).toEqual({});
      expect(pagerdutyRow.secrets).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
      expect(JSON.parse(api.notifications.box.open(pagerdutyRow.secrets!))).toEqual({ integrationKey: key });
      const webhookRow = rows.find((row) => row.id === webhook.notification!.id)!;
      expect(webhookRow.secrets).toBeNull();
      expect(api.notifications.box.open(webhookRow.signingSecret!)).toBe(webhook.signingSecret);
      expect(await storedChannel(pagerduty.id)).toMatchObject({ type: "pagerduty", config: { integrationKey: key } });
    });

    it("keeps the stored values when an update sends back the redacted form (get, modify, update)", async () => {
      const apiKey = "eb243592-faa2-4ba2-a551-1afdf565c889";
      const created = await createChannel(channel("opsgenie", { apiKey, region: "eu" }, { name: "before", monitorIds }));
      const got = (await client.getNotification({ id: created.id })).notification!;
      got.name = "after";
      blockOf(got).region = "us";
      const updated = (await client.updateNotification({ id: got.id, notification: got })).notification!;
      expect(updated).toMatchObject({ name: "after", monitorIds: [...monitorIds].sort(), secretFingerprints: created.secretFingerprints });
      expect(blockOf(updated)).toEqual(expect.objectContaining({ apiKey: "…c889", region: "us" }));
      expect((await storedChannel(created.id))!.config).toEqual({ apiKey, region: "us" });

      for (const [type, fields] of [
        ["slack", { webhookUrl: SLACK_URL }],
        ["ntfy", { topic: "t", token: "short-token" }],
      ] as const) {
        const before = await createChannel(channel(type, fields));
        const roundTrip = (await client.updateNotification({ id: before.id, notification: before })).notification!;
        expect(roundTrip.secretFingerprints).toEqual(before.secretFingerprints);
        expect((await storedChannel(before.id))!.config).toMatchObject(fields);
      }
    });

    it("replaces a stored secret with a new value", async () => {
      const created = await createChannel(channel("slack", { webhookUrl: SLACK_URL }));
      const next = "https://hooks.slack.com/services/T0002/B0002/zyxwvutsrqponmlkjihgfedc";
      const updated = (await client.updateNotification({ id: created.id, notification: channel("slack", { webhookUrl: next }) })).notification!;
      expect(updated.secretFingerprints).toEqual({ webhookUrl: fingerprint(created.id, next) });
      expect((await storedChannel(created.id))!.config).toEqual({ webhookUrl: next });
    });

    describe("webhook signing secrets", () => {
      const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;
      const storedSecret = async (id: string) => (await storedChannel(id))!.signingSecret;

      it("are made at creation and returned only then", async () => {
        const { notification, signingSecret } = await client.createNotification({ notification: channel("webhook") });
        expect(signingSecret).toMatch(WHSEC);
        expect(await storedSecret(notification!.id)).toBe(signingSecret);
        const second = await client.createNotification({ notification: channel("webhook") });
        expect(second.signingSecret).not.toBe(signingSecret);
        const { signingSecret: none } = await client.createNotification({ notification: channel("slack") });
        expect(none).toBe("");
        const answers = JSON.stringify(
          [
            await client.getNotification({ id: notification!.id }),
            await client.listNotifications({ limit: 100 }),
            await client.updateNotification({ id: notification!.id, notification: { name: "renamed" } }),
          ],
          (_, value: unknown) => (typeof value === "bigint" ? String(value) : value),
        );
        expect(answers).not.toContain(signingSecret);
      });

      it("stay when a webhook channel changes its endpoint, go when it becomes another provider, and are new when it becomes a webhook again", async () => {
        const { notification, signingSecret } = await client.createNotification({ notification: channel("webhook") });
        const id = notification!.id;
        const moved = await client.updateNotification({ id, notification: channel("webhook", { endpoint: "https://elsewhere.example.com/" }) });
        expect(moved.signingSecret).toBe("");
        expect(await storedSecret(id)).toBe(signingSecret);

        await client.updateNotification({ id, notification: channel("slack") });
        expect(await storedSecret(id)).toBeNull();
        expect((await api.db.prisma.notificationChannel.findUnique({ where: { id } }))!.signingSecret).toBeNull();

        const back = await client.updateNotification({ id, notification: channel("webhook") });
        expect(back.signingSecret).toMatch(WHSEC);
        expect(back.signingSecret).not.toBe(signingSecret);
        expect(await storedSecret(id)).toBe(back.signingSecret);
      });
    });
  });

  describe("update", () => {
    const linked = () => createChannel(channel("slack", undefined, { name: "linked", monitorIds }));
    const linksOf = async (id: string) =>
      (await api.db.prisma.notificationMonitor.findMany({ where: { notificationId: id }, orderBy: { monitorId: "asc" } })).map((l) => l.monitorId);

    it("changes only the name when only the name is sent, keeping the block and the links", async () => {
      const created = await linked();
      const { notification } = await client.updateNotification({ id: created.id, notification: { name: "renamed" } });
      expect(notification).toMatchObject({ name: "renamed", monitorIds: created.monitorIds, secretFingerprints: created.secretFingerprints });
      expect(notification!.provider).toEqual(created.provider);
      expect(await linksOf(created.id)).toEqual([...monitorIds].sort());
    });

    it("keeps the links when monitor_ids is sent empty without a mask, and unlinks every monitor when the mask names it", async () => {
      const created = await linked();
      const kept = await client.updateNotification({ id: created.id, notification: { name: "x", monitorIds: [] } });
      expect(kept.notification!.monitorIds).toEqual(created.monitorIds);
      const cleared = await client.updateNotification({ id: created.id, notification: {}, updateMask: mask("monitor_ids") });
      expect(cleared.notification!.monitorIds).toEqual([]);
      expect(await linksOf(created.id)).toEqual([]);
      expect(cleared.notification!.name).toBe("x");
    });

    it("replaces the set of monitors with the one sent", async () => {
      const created = await createChannel(channel("slack", undefined, { monitorIds: [monitorIds[0]!] }));
      const { notification } = await client.updateNotification({ id: created.id, notification: { monitorIds: [monitorIds[1]!] }, updateMask: mask("monitorIds") });
      expect(notification!.monitorIds).toEqual([monitorIds[1]]);
      expect(await linksOf(created.id)).toEqual([monitorIds[1]]);
    });

    it("resets a name the mask names without a value, and changes nothing else", async () => {
      const created = await linked();
      const { notification } = await client.updateNotification({
        id: created.id,
        notification: channel("discord", undefined, { monitorIds: [] }),
        updateMask: mask("name"),
      });
      expect(notification).toMatchObject({ name: "", providerType: "slack", monitorIds: created.monitorIds });
    });

    it("replaces the block when one is sent, keeping name and links", async () => {
      const created = await linked();
      const { notification } = await client.updateNotification({ id: created.id, notification: channel("slack", { webhookUrl: "https://other.example.com/hook" }) });
      expect(notification).toMatchObject({ name: "linked", monitorIds: created.monitorIds });
      expect(blockOf(notification)).toEqual(expect.objectContaining({ webhookUrl: "https://other.example.com/…" }));
    });

    it("changes the provider together with its block, by mask in proto or JSON spelling", async () => {
      const created = await linked();
      const pagerduty = await client.updateNotification({
        id: created.id,
        notification: channel("pagerduty", { integrationKey: "new-key" }, { providerType: "pagerduty" }),
      });
      expect(pagerduty.notification).toMatchObject({ providerType: "pagerduty", name: "linked", monitorIds: created.monitorIds });
      expect(await storedChannel(created.id)).toMatchObject({ type: "pagerduty", config: { integrationKey: "new-key" } });
      for (const path of ["google_chat", "googleChat"]) {
        const { notification } = await client.updateNotification({ id: created.id, notification: channel("google_chat"), updateMask: mask(path) });
        expect(notification!.providerType).toBe("google_chat");
      }
    });

    it("refuses a new provider_type without its block, or one that does not match the block sent", async () => {
      const created = await linked();
      await refused(
        () => client.updateNotification({ id: created.id, notification: { providerType: "pagerduty" } }),
        Code.InvalidArgument,
        "notification.providerType: is slack; the provider changes only together with its block",
      );
      await refused(
        () => client.updateNotification({ id: created.id, notification: channel("pagerduty", { integrationKey: "k" }, { providerType: "slack" }) }),
        Code.InvalidArgument,
        "notification.providerType: must match the provider block (pagerduty)",
      );
      // Naming the stored provider is no change, and allowed.
      expect((await client.updateNotification({ id: created.id, notification: { providerType: "slack", name: "same" } })).notification!.name).toBe("same");
    });

    it("refuses a mask naming a block the request does not carry, two blocks, or something else", async () => {
      const created = await linked();
      await refused(
        () => client.updateNotification({ id: created.id, notification: channel("discord"), updateMask: mask("slack") }),
        Code.InvalidArgument,
        "notification.slack: is required: updateMask names it",
      );
      await refused(
        () => client.updateNotification({ id: created.id, notification: channel("slack"), updateMask: mask("slack", "discord") }),
        Code.InvalidArgument,
        "updateMask: names two provider blocks",
      );
      await refused(
        () => client.updateNotification({ id: created.id, notification: {}, updateMask: mask("secret_fingerprints") }),
        Code.InvalidArgument,
        "updateMask: names secret_fingerprints, which is not name, monitor_ids, external_id, reminder_minutes or a provider block",
      );
    });

    it("validates what it changes with the rules of a create, and writes nothing when a rule is broken", async () => {
      const created = await linked();
      await refused(
        () => client.updateNotification({ id: created.id, notification: channel("slack", { webhookUrl: "nope" }, { name: "n".repeat(257) }) }),
        Code.InvalidArgument,
        "notification.name: must be at most 256 characters; notification.slack.webhookUrl: must be an absolute http:// or https:// URL",
      );
      await refused(
        () => client.updateNotification({ id: created.id, notification: { monitorIds: [monitorIds[0]!, foreignMonitorId] } }),
        Code.InvalidArgument,
        `notification.monitorIds[1]: no monitor ${foreignMonitorId} in this workspace`,
      );
      expect((await client.updateNotification({ id: created.id, notification: { name: "n".repeat(256) } })).notification!.name).toHaveLength(256);
    });

    it("answers the channel unchanged when nothing is to change", async () => {
      const created = await linked();
      const { notification } = await client.updateNotification({ id: created.id });
      expect(notification).toEqual(created);
    });

    it("answers not_found for an unknown id and invalid_argument for none", async () => {
      await refused(() => client.updateNotification({ id: "no-such-channel", notification: { name: "x" } }), Code.NotFound, "notification no-such-channel not found");
      await refused(() => client.updateNotification({ id: "", notification: { name: "x" } }), Code.InvalidArgument, "id: is required");
    });
  });

  describe("list", () => {
    it("pages through the workspace's channels in creation order with the total", async () => {
      const keys = await api.workspace();
      const own = api.notificationClient(keys.write.key);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await own.createNotification({ notification: channel("telegram", undefined, { name: `c${i}` }) })).notification!.id);
      // Channels created within one millisecond are ordered by id.
      const order = (
        await api.db.prisma.notificationChannel.findMany({ where: { workspace: { slug: keys.slug } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })
      ).map((row) => row.id);
      expect([...order].sort()).toEqual([...ids].sort());
      const pages = [await own.listNotifications({ limit: 2 }), await own.listNotifications({ limit: 2, offset: 2 }), await own.listNotifications({ limit: 2, offset: 4 })];
      expect(pages.map((p) => p.notifications.map((n) => n.id))).toEqual([order.slice(0, 2), order.slice(2, 4), order.slice(4)]);
      expect(pages.map((p) => p.totalSize)).toEqual([5, 5, 5]);
      expect((await own.listNotifications({ offset: 5 })).notifications).toEqual([]);
    });

    it("answers 50 by default, takes a limit from 1 to 100, and an offset of 0 or more", async () => {
      const own = api.notificationClient((await api.workspace()).write.key);
      for (let i = 0; i < 51; i++) await own.createNotification({ notification: channel("email") });
      expect((await own.listNotifications({})).notifications).toHaveLength(50);
      expect((await own.listNotifications({ limit: 1 })).notifications).toHaveLength(1);
      expect((await own.listNotifications({ limit: 100 })).notifications).toHaveLength(51);
      expect((await own.listNotifications({ offset: 0 })).totalSize).toBe(51);
      await refused(() => own.listNotifications({ limit: 0 }), Code.InvalidArgument, "limit: must be an integer from 1 to 100");
      await refused(() => own.listNotifications({ limit: 101 }), Code.InvalidArgument, "limit: must be an integer from 1 to 100");
      await refused(() => own.listNotifications({ offset: -1 }), Code.InvalidArgument, "offset: must be an integer from 0 to 2147483647");
    });
  });

  describe("delete", () => {
    it("deletes a channel and its links; it is not found after", async () => {
      const created = await createChannel(channel("slack", undefined, { monitorIds }));
      expect(await client.deleteNotification({ id: created.id })).toMatchObject({ success: true });
      await refused(() => client.getNotification({ id: created.id }), Code.NotFound, `notification ${created.id} not found`);
      await refused(() => client.deleteNotification({ id: created.id }), Code.NotFound, `notification ${created.id} not found`);
      expect(await api.db.prisma.notificationMonitor.count({ where: { notificationId: created.id } })).toBe(0);
      // The monitors themselves stay.
      expect((await monitors.getMonitor({ id: monitorIds[0]! })).monitor).toBeDefined();
    });

    it("unlinks a monitor when the monitor is deleted", async () => {
      const doomed = await newMonitor(monitors, "doomed");
      const created = await createChannel(channel("slack", undefined, { monitorIds: [doomed, monitorIds[0]!] }));
      await monitors.deleteMonitor({ id: doomed });
      expect((await client.getNotification({ id: created.id })).notification!.monitorIds).toEqual([monitorIds[0]]);
    });
  });
});
