import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { NotificationSchema, NotificationService, type Notification } from "@vigil/proto/notification";
import { Argument, Command, InvalidArgumentError } from "commander";
import { action, send } from "../context.js";
import { CliError } from "../failures.js";
import { fields, parseInteger, type FieldFlag } from "../fields.js";
import { messageDetails, table } from "../output.js";
import { addCommands, type Resource } from "../resource.js";

/** The channel types by their JSON names (slack, googleChat, …), read from the contract. */
const PROVIDERS = NotificationSchema.fields.filter((field) => field.oneof?.name === "provider").map((field) => field.jsonName);

/** `google-chat` or `googleChat` -> `googleChat`. */
function providerOf(value: string): string {
  const camel = value.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const known = PROVIDERS.find((name) => name.toLowerCase() === camel.toLowerCase());
  if (!known) throw new InvalidArgumentError(`must be one of ${PROVIDERS.join(", ")}`);
  return known;
}

function parseSetting(value: string): [string, string] {
  const at = value.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError("must be field=value, the field by its JSON name (webhookUrl, chatId, …)");
  return [value.slice(0, at), value.slice(at + 1)];
}

const notificationFields = (): FieldFlag[] => [
  fields.text("--name <name>", "name", "display name"),
  fields.texts("--monitor <id>", "monitorIds", "a monitor whose alerts it sends; the list replaces the current one"),
  fields.integer("--reminder-minutes <n>", "reminderMinutes", "resend the alert of an open, unacknowledged incident every n minutes (0: never, at most 1440)"),
];

function withProviderSettings(command: Command): Command {
  return command.option(
    "--set <field=value>",
    "a field of the channel's settings by its JSON name, e.g. webhookUrl=https://… or email=ops@example.com (repeatable)",
    (value: string, previous: [string, string][] = []) => [...previous, parseSetting(value)],
  );
}

type Settings = [string, string][] | undefined;

/** Lays `--set` values over the provider block of the body (from `--from-json`, or empty). */
function withSettings(body: Record<string, unknown>, provider: string, settings: Settings): Record<string, unknown> {
  if (!settings?.length) return body;
  return { ...body, [provider]: { ...(body[provider] as object | undefined), ...Object.fromEntries(settings) } };
}

const date = (at: Timestamp | undefined) => (at ? timestampDate(at).toISOString() : "");
const providerName = (n: Notification) => n.provider.case ?? n.providerType ?? "";

const CHANNELS: Resource = {
  service: NotificationService,
  client: (client) => client.notifications,
  schema: NotificationSchema,
  noun: "notification",
  field: "notification",
  fields: notificationFields,
  commands: {
    list: "list notification channels",
    get: "show one notification channel",
    create: "create a notification channel, e.g. vigil notifications create slack --name Ops --set webhookUrl=https://hooks.slack.com/…",
    update: "change fields of a notification channel",
    delete: "delete a notification channel",
  },
  list: {
    items: "notifications",
    headers: ["ID", "NAME", "PROVIDER", "MONITORS"],
    row: (n: Notification) => [n.id, n.name ?? "", providerName(n), n.monitorIds.join(",")],
  },
  details: (ctx, { notification, signingSecret }: { notification?: Notification; signingSecret?: string }) =>
    messageDetails(ctx.out.colors, NotificationSchema, notification, signingSecret ? [["signingSecret (shown once)", signingSecret]] : []),
  options: withProviderSettings,
  create: {
    argument: new Argument("<provider>", `channel type: ${PROVIDERS.join(", ")}`).argParser(providerOf),
    body: (_ctx, body, options, provider) => withSettings({ [provider]: {}, ...body }, provider, options.set as Settings),
  },
  update: {
    async body(ctx, body, options, id) {
      if (!(options.set as Settings)?.length) return body;
      // The settings belong to the channel's provider block, so learn which one it has.
      const current = (await ctx.client.notifications.getNotification({ id })).notification;
      const provider = current?.provider.case;
      if (!provider) throw new CliError(`notification ${id} has no provider block to --set fields of`);
      return withSettings(body, provider, options.set as Settings);
    },
  },
};

export function notificationsCommand(): Command {
  const notifications = new Command("notifications").description("notification channels: where alerts are sent");

  addCommands(notifications, CHANNELS);

  notifications
    .command("test")
    .description("send a test message through the channel")
    .argument("<id>", "notification id")
    .action(
      action(async (ctx, id: string) => {
        const r = await ctx.client.notifications.sendTestNotification({ id });
        if (!r.success) throw new CliError(`the test message through notification ${id} was not delivered: ${r.errorMessage}`);
        ctx.out.write(ctx.out.renderMessage(NotificationService.method.sendTestNotification.output, r, () => `sent a test message through notification ${id}`));
      }),
    );

  notifications
    .command("deliveries")
    .description("recent deliveries of the channel's messages, or of an incident's to every channel (--incident)")
    .argument("[id]", "notification id")
    .option("--incident <id>", "only the deliveries of this incident's events")
    .option("--limit <n>", "at most this many", parseInteger)
    .action(
      action(async (ctx, id: string | undefined, options: { incident?: string; limit?: number }) => {
        const request = { id, incidentId: options.incident, limit: options.limit };
        await send(ctx, NotificationService.method.listNotificationDeliveries, ctx.client.notifications.listNotificationDeliveries, request, (r) =>
          table(
            ctx.out.colors,
            ["ID", "NOTIFICATION", "EVENT", "MONITOR", "OUTCOME", "STATUS", "ATTEMPTS", "CREATED", "ERROR"],
            r.deliveries.map((d) => [
              d.id,
              d.notificationId,
              d.event,
              d.monitorId,
              d.outcome,
              d.statusCode ? String(d.statusCode) : "",
              String(d.attempts),
              date(d.createdAt),
              d.error,
            ]),
          ),
        );
      }),
    );

  return notifications;
}
