import {
  LIMITS,
  PROVIDER_TYPES,
  SENSITIVE_FIELDS,
  blockName,
  isProviderType,
  notificationInputFromMessage,
  notificationToMessage,
  parseChannelCommon,
  parseProviderConfig,
  restoreCredentials,
  secretFingerprint,
  type ProviderConfig,
  type ProviderType,
} from "@vigil/domain";
import { domainViolations, ProviderError, type Violation } from "../diagnostics.js";
import { computed, fieldOf, fromOutput, required, toInput, withDefault, type AttributeSpec, type BlockSpec, type NestedBlockSpec } from "../schema/index.js";
import { isObject, isUnknown, type TfObject } from "../values/index.js";
import { deleteIfPresent, timestampAttributes, timestampText, unlessMissing } from "./common.js";
import type { CallContext, ResourceDefinition } from "./definition.js";

type NotificationMessage = ReturnType<typeof notificationToMessage>;

/** A provider's block; the fields the domain's SENSITIVE_FIELDS lists are marked sensitive. */
function providerBlock(
  type: ProviderType,
  description: string,
  attributes: Record<string, AttributeSpec>,
  blocks?: Record<string, NestedBlockSpec>,
): NestedBlockSpec {
  const sensitive = SENSITIVE_FIELDS[type] as readonly string[];
  const marked = Object.entries(attributes).map(([name, spec]) => [name, sensitive.includes(fieldOf(name, spec)) ? { ...spec, sensitive: true } : spec]);
  return { nesting: "single", description, block: { attributes: Object.fromEntries(marked), blocks } };
}

const webhookUrl = (service: string) => required("string", `${service} incoming webhook URL (http or https).`);
const phoneNumber = () => required("string", "Phone number in E.164 form, such as +15558675310.");

/** The contract's provider blocks, named as provider_type spells them. */
const PROVIDER_BLOCKS: Record<ProviderType, NestedBlockSpec> = {
  discord: providerBlock("discord", "Discord channel.", { webhook_url: webhookUrl("Discord") }),
  email: providerBlock("email", "Email channel.", { email: required("string", "Address messages are sent to.") }),
  slack: providerBlock("slack", "Slack channel.", { webhook_url: webhookUrl("Slack") }),
  pagerduty: providerBlock("pagerduty", "PagerDuty channel.", { integration_key: required("string", "Events API v2 integration key.") }),
  opsgenie: providerBlock("opsgenie", "Opsgenie channel.", {
    api_key: required("string", "Opsgenie API key."),
    region: required("string", "Opsgenie region: us or eu."),
  }),
  webhook: providerBlock(
    "webhook",
    "Webhook channel: a signed JSON POST to the endpoint.",
    { endpoint: required("string", "URL (http or https) the events are posted to.") },
    {
      headers: {
        nesting: "list",
        description: "Headers sent with each call, typically for authentication.",
        maxItems: LIMITS.webhookHeaders,
        block: {
          attributes: {
            key: required("string", "Header name."),
            // Not redacted by the API, but such headers usually carry credentials: kept out of plan output as the monitors' headers are.
            value: required("string", "Header value.", { sensitive: true }),
          },
        },
      },
    },
  ),
  telegram: providerBlock("telegram", "Telegram channel.", { chat_id: required("string", "Chat the deployment's bot writes to.") }),
  sms: providerBlock("sms", "SMS channel.", { phone_number: phoneNumber() }),
  whatsapp: providerBlock("whatsapp", "WhatsApp channel.", { phone_number: phoneNumber() }),
  google_chat: providerBlock("google_chat", "Google Chat channel.", { webhook_url: webhookUrl("Google Chat") }),
  grafana_oncall: providerBlock("grafana_oncall", "Grafana OnCall channel.", { webhook_url: webhookUrl("Grafana OnCall") }),
  ntfy: providerBlock("ntfy", "ntfy channel.", {
    topic: required("string", "Topic: letters, digits, - and _, at most 64."),
    server_url: withDefault("string", "ntfy server (http or https); empty: https://ntfy.sh.", ""),
    token: withDefault("string", "Access token; empty: none.", ""),
  }),
};

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The channel's id."),
    name: withDefault("string", `Name of the channel, at most ${LIMITS.nameMaxChars} characters.`, ""),
    provider_type: required("string", `The provider: ${PROVIDER_TYPES.join(", ")}; the block of the same name configures it.`),
    monitor_ids: withDefault(["set", "string"], "Ids of the monitors whose events the channel receives.", []),
    reminder_minutes: withDefault(
      "number",
      `Resend the alert of an open, unacknowledged incident every this many minutes, ${LIMITS.reminderMinutes.min} (never) to ${LIMITS.reminderMinutes.max}.`,
      0,
    ),
    ...timestampAttributes("channel"),
  },
  blocks: PROVIDER_BLOCKS,
};

/** The configured blocks, by provider type; `unknown` when whether one is there is not known yet (a dynamic block). */
function configuredBlocks(config: TfObject): { types: ProviderType[]; unknown: boolean } {
  const types = PROVIDER_TYPES.filter((type) => (config[type] ?? null) !== null && !isUnknown(config[type]));
  return { types, unknown: PROVIDER_TYPES.some((type) => isUnknown(config[type])) };
}

/** Exactly one block, the one provider_type names: what the API requires of a channel, checked before anything is sent. */
function blockViolations(config: TfObject): Violation[] {
  const providerType = config.provider_type ?? null;
  if (providerType === null || isUnknown(providerType)) return [];
  if (!isProviderType(providerType)) return [{ field: "providerType", rule: `must be one of ${PROVIDER_TYPES.join(", ")}` }];
  const { types, unknown } = configuredBlocks(config);
  const others = types.filter((type) => type !== providerType);
  const violations: Violation[] = others.map((type) => ({
    field: blockName(type),
    rule: `is not allowed: provider_type is ${providerType}, and a channel has exactly one provider block`,
  }));
  if (!unknown && !types.includes(providerType)) {
    violations.push({ field: "providerType", rule: `is ${providerType}: a ${providerType} block is required` });
  }
  return violations;
}

/** The channel as the domain validates it: its common fields and its one provider block. */
function parseChannel(value: TfObject) {
  const input = toInput(schema, value);
  const type = value.provider_type as ProviderType;
  return {
    common: parseChannelCommon(input),
    provider: { type, config: parseProviderConfig(type, input[blockName(type)] ?? {}) } as ProviderConfig,
  };
}

function validate(config: TfObject): Violation[] {
  const common = domainViolations(() => parseChannelCommon(toInput(schema, config)));
  const blocks = blockViolations(config);
  const type = config.provider_type;
  // The block's own rules once it is the one block provider_type names.
  const checkBlock = blocks.length === 0 && isProviderType(type) && isObject(config[type] ?? null);
  const block = checkBlock ? domainViolations(() => parseProviderConfig(type, toInput(schema, config)[blockName(type)])) : [];
  return [...common, ...blocks, ...block];
}

/** The API message of a planned channel: name, monitors, provider_type and its block, nothing read-only. */
function message(planned: TfObject) {
  const { common, provider } = parseChannel(planned);
  const full = notificationToMessage({
    ...common,
    id: "",
    provider,
    externalId: null,
    secretFingerprints: {},
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
  return { ...full, externalId: undefined, createdAt: undefined, updatedAt: undefined };
}


/** An answered channel: its provider, its block's fields (sensitive ones redacted) and every field by the schema's camelCase names. */
export function answeredChannel(notification: NotificationMessage | undefined) {
  const input = notification && notificationInputFromMessage(notification);
  if (!notification || !input?.block) throw new ProviderError("Unexpected answer", "the API answered without the notification channel or its provider block");
  const { type, fields } = input.block;
  const { id, secretFingerprints } = notification;
  const output: Record<string, unknown> = {
    id,
    name: input.name ?? "",
    providerType: type,
    monitorIds: input.monitorIds,
    reminderMinutes: notification.reminderMinutes ?? 0,
    createdAt: timestampText(notification.createdAt),
    updatedAt: timestampText(notification.updatedAt),
    [blockName(type)]: fields,
  };
  return { id, type, fields, secretFingerprints, output };
}

/**
 * The state of an answered channel. The API answers secrets redacted, so the
 * value `known` holds (the plan, or the prior state) is kept when it is the
 * stored one (by the answer's fingerprint); otherwise the redacted value goes
 * into the state, and the next plan shows the configured value replacing it.
 * So are the credentials a read key is answered as fingerprints (header
 * values, URL user info, a webhook endpoint's path and query).
 */
function stateOf(notification: NotificationMessage | undefined, known: TfObject | null): TfObject {
  const { id, type, fields, secretFingerprints, output } = answeredChannel(notification);
  const knownBlock = known?.[type] ?? null;
  if (knownBlock === null || !isObject(knownBlock)) return fromOutput(schema, output);
  for (const [name, spec] of Object.entries(PROVIDER_BLOCKS[type].block.attributes)) {
    const field = fieldOf(name, spec);
    const held = knownBlock[name];
    // Only the sensitive fields that are set have a fingerprint; the answer shows every other field as it is.
    const fingerprint = secretFingerprints[field];
    if (typeof held === "string" && fingerprint !== undefined && secretFingerprint(id, held) === fingerprint) fields[field] = held;
  }
  const name = blockName(type);
  output[name] = restoreCredentials({ [name]: fields }, { [name]: toInput(PROVIDER_BLOCKS[type].block, knownBlock) }, id)[name];
  return fromOutput(schema, output);
}

/** Fetches one channel; null when there is none with that id. */
async function getNotification(ctx: CallContext, id: string): Promise<NotificationMessage | null> {
  const answer = await unlessMissing(ctx.client.notifications.getNotification({ id }, { signal: ctx.signal }));
  return answer?.notification ?? null;
}

export const notificationResource: ResourceDefinition = {
  typeName: "service_notification",
  description: "A notification channel: where the events of its monitors are delivered (Slack, email, a webhook, ...).",
  schema,
  validate,
  async create(ctx, planned) {
    const { notification } = await ctx.client.notifications.createNotification({ notification: message(planned) }, { signal: ctx.signal });
    return stateOf(notification, planned);
  },
  async read(ctx, state) {
    const found = await getNotification(ctx, String(state.id));
    return found && stateOf(found, state);
  },
  async update(ctx, planned, prior) {
    const type = planned.provider_type as ProviderType;
    // Every field the resource manages, so that a monitor list emptied in the configuration is emptied (see UpdateNotificationRequest).
    const updateMask = { paths: ["name", "monitor_ids", "reminder_minutes", type] };
    const request = { id: String(prior.id), notification: message(planned), updateMask };
    const { notification } = await ctx.client.notifications.updateNotification(request, { signal: ctx.signal });
    return stateOf(notification, planned);
  },
  async delete(ctx, state) {
    await deleteIfPresent(ctx.client.notifications.deleteNotification({ id: String(state.id) }, { signal: ctx.signal }));
  },
  importState: (id) => ({ id }),
};
