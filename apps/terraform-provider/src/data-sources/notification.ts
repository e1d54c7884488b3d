import { PROVIDER_TYPES } from "@vigil/domain";
import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import type { DataSourceDefinition } from "../resources/definition.js";
import { answeredChannel } from "../resources/notification.js";

const schema: BlockSpec = {
  attributes: {
    id: required("string", "The channel's id."),
    name: computed("string", "Name of the channel."),
    provider_type: computed("string", `The provider: ${PROVIDER_TYPES.join(", ")}.`),
    monitor_ids: computed(["set", "string"], "Ids of the monitors whose events the channel receives."),
    reminder_minutes: computed("number", "Minutes between reminders of an open, unacknowledged incident; 0: none."),
    created_at: computed("string", "When the channel was created (RFC 3339)."),
    updated_at: computed("string", "When the channel was last changed (RFC 3339)."),
  },
};

export const notificationDataSource: DataSourceDefinition = {
  typeName: "service_notification",
  description: "One notification channel, by id (its provider block's fields, secrets among them, are not read).",
  schema,
  async read(ctx, config) {
    const { notification } = await ctx.client.notifications.getNotification({ id: String(config.id) }, { signal: ctx.signal });
    return fromOutput(schema, answeredChannel(notification).output);
  },
};
