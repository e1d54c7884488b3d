import { secretFingerprint } from "@vigil/domain";
import { terraformTests } from "./support/terraform.js";

const SLACK_URL = "https://hooks.slack.com/services/T0001/B0001/first";
const SLACK_URL_NEW = "https://hooks.slack.com/services/T0001/B0001/second";
const NTFY_TOKEN = "tk_0123456789abcdefghij";
const OPSGENIE_KEY = "0123456789abcdef-opsgenie";
const PAGERDUTY_KEY = "0123456789abcdef-pagerduty";

interface Settings {
  slackName: string;
  slackUrl: string;
  slackMonitors: string;
  hookMonitors: string;
  ntfyToken: string;
  pager: "opsgenie" | "pagerduty";
}

const INITIAL: Settings = {
  slackName: "Ops Slack",
  slackUrl: SLACK_URL,
  slackMonitors: "[service_tcp_monitor.db.id]",
  hookMonitors: "[]",
  ntfyToken: NTFY_TOKEN,
  pager: "opsgenie",
};

const PAGER_BLOCKS = {
  opsgenie: `opsgenie {
    api_key = "${OPSGENIE_KEY}"
    region  = "eu"
  }`,
  pagerduty: `pagerduty {
    integration_key = "${PAGERDUTY_KEY}"
  }`,
};

/** A monitor, five channels (the pager one switches from Opsgenie to PagerDuty), and the data source reading one of them. */
const channels = (s: Settings) => `
resource "service_tcp_monitor" "db" {
  name        = "Database"
  uri         = "db.example.com:5432"
  periodicity = "1m"
}

resource "service_notification" "slack" {
  name          = "${s.slackName}"
  provider_type = "slack"
  monitor_ids   = ${s.slackMonitors}
  slack {
    webhook_url = "${s.slackUrl}"
  }
}

resource "service_notification" "hook" {
  provider_type = "webhook"
  monitor_ids   = ${s.hookMonitors}
  webhook {
    endpoint = "https://hooks.example.com/vigil"
    headers {
      key   = "authorization"
      value = "Bearer hook-secret"
    }
  }
}

resource "service_notification" "ntfy" {
  name          = "Phones"
  provider_type = "ntfy"
  ntfy {
    topic = "vigil-alerts"
    token = "${s.ntfyToken}"
  }
}

resource "service_notification" "pager" {
  provider_type = "${s.pager}"
  ${PAGER_BLOCKS[s.pager]}
}

resource "service_notification" "email" {
  name             = "On call"
  provider_type    = "email"
  monitor_ids      = [service_tcp_monitor.db.id]
  reminder_minutes = 30
  email {
    email = "oncall@example.com"
  }
}

data "service_notification" "slack" {
  id = service_notification.slack.id
}
`;

const RFC_3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

// Email channels need an SMTP server configured; nothing is sent when a channel is only created, so nothing listens there.
const fx = terraformTests({ providerEnv: { SMTP_URL: "smtp://127.0.0.1:2525" } });

const notifications = () => fx.api.notificationClient(fx.ws.write.key);
const getChannel = async (id: string) => (await notifications().getNotification({ id })).notification!;

describe("service_notification with terraform", () => {
  const tf = fx.folder();
  const ids: Record<string, string> = {};
  let monitorId: string;
  const write = (settings: Partial<Settings> = {}) => tf.configure(channels({ ...INITIAL, ...settings }));
  const stateOf = (name: string) => tf.stateOf(`service_notification.${name}`);

  it("creates the channels, keeps the secrets from the configuration, and a second plan shows no changes", async () => {
    await write();
    await tf.apply();
    monitorId = String((await tf.stateOf("service_tcp_monitor.db"))?.id);
    for (const name of ["slack", "hook", "ntfy", "pager", "email"]) ids[name] = String((await stateOf(name))?.id);

    const slack = await getChannel(ids.slack!);
    expect(slack).toMatchObject({ name: "Ops Slack", providerType: "slack", monitorIds: [monitorId] });
    expect(slack.provider).toEqual({ case: "slack", value: expect.objectContaining({ webhookUrl: "https://hooks.slack.com/…" }) });
    expect(slack.secretFingerprints).toEqual({ webhookUrl: secretFingerprint(ids.slack!, SLACK_URL) });
    const hook = await getChannel(ids.hook!);
    expect(hook).toMatchObject({ name: "", providerType: "webhook", monitorIds: [] });
    expect(hook.provider.value).toMatchObject({ endpoint: "https://hooks.example.com/vigil", headers: [{ key: "authorization", value: "Bearer hook-secret" }] });
    const ntfy = await getChannel(ids.ntfy!);
    expect(ntfy.provider.value).toMatchObject({ topic: "vigil-alerts", serverUrl: "" });
    expect(ntfy.secretFingerprints).toEqual({ token: secretFingerprint(ids.ntfy!, NTFY_TOKEN) });
    expect((await getChannel(ids.pager!)).provider.value).toMatchObject({ region: "eu" });
    expect(await getChannel(ids.email!)).toMatchObject({ name: "On call", providerType: "email", monitorIds: [monitorId], reminderMinutes: 30 });
    expect(await stateOf("email")).toMatchObject({ reminder_minutes: 30 });
    expect(await stateOf("slack")).toMatchObject({ reminder_minutes: 0 });

    const state = await stateOf("slack");
    expect(state).toMatchObject({ name: "Ops Slack", provider_type: "slack", monitor_ids: [monitorId], slack: { webhook_url: SLACK_URL }, webhook: null });
    expect(state?.created_at).toMatch(RFC_3339);
    expect(state?.updated_at).toMatch(RFC_3339);
    expect(await stateOf("hook")).toMatchObject({ name: "", monitor_ids: [], webhook: { headers: [{ key: "authorization", value: "Bearer hook-secret" }] } });
    expect(await stateOf("ntfy")).toMatchObject({ ntfy: { topic: "vigil-alerts", server_url: "", token: NTFY_TOKEN } });
    expect(await stateOf("pager")).toMatchObject({ opsgenie: { api_key: OPSGENIE_KEY, region: "eu" } });
    expect(await tf.stateOf("data.service_notification.slack")).toEqual({
      id: ids.slack,
      name: "Ops Slack",
      provider_type: "slack",
      monitor_ids: [monitorId],
      reminder_minutes: 0,
      created_at: state?.created_at,
      updated_at: state?.updated_at,
    });
    await tf.plan(0);
  });

  it("updates in place, a webhook URL, a token and the provider too, keeping the ids", async () => {
    await write({
      slackName: "Slack",
      slackUrl: SLACK_URL_NEW,
      slackMonitors: "[]",
      hookMonitors: "[service_tcp_monitor.db.id]",
      ntfyToken: "",
      pager: "pagerduty",
    });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("Plan: 0 to add, 4 to change, 0 to destroy.");
    expect(plan.stdout).not.toContain("must be replaced");
    await tf.apply();
    for (const name of ["slack", "hook", "ntfy", "pager"]) expect((await stateOf(name))?.id).toBe(ids[name]);

    const slack = await getChannel(ids.slack!);
    expect(slack).toMatchObject({ name: "Slack", monitorIds: [] });
    expect(slack.secretFingerprints).toEqual({ webhookUrl: secretFingerprint(ids.slack!, SLACK_URL_NEW) });
    expect((await getChannel(ids.hook!)).monitorIds).toEqual([monitorId]);
    const ntfy = await getChannel(ids.ntfy!);
    expect({ token: (ntfy.provider.value as { token: string }).token, fingerprints: ntfy.secretFingerprints }).toEqual({ token: "", fingerprints: {} });
    const pager = await getChannel(ids.pager!);
    expect({ type: pager.providerType, fingerprints: pager.secretFingerprints }).toEqual({
      type: "pagerduty",
      fingerprints: { integrationKey: secretFingerprint(ids.pager!, PAGERDUTY_KEY) },
    });
    expect(await stateOf("slack")).toMatchObject({ slack: { webhook_url: SLACK_URL_NEW } });
    expect(await stateOf("pager")).toMatchObject({ opsgenie: null, pagerduty: { integration_key: PAGERDUTY_KEY } });
    await tf.plan(0);
  });

  it("shows the name and monitors changed outside Terraform as drift, and keeps a secret the change sent back redacted", async () => {
    const slack = await getChannel(ids.slack!);
    // get → modify → update as a client does: the block goes back as answered, with its secret redacted.
    await notifications().updateNotification({
      id: ids.slack!,
      notification: { ...slack, name: "Renamed by hand", monitorIds: [monitorId] },
      updateMask: { paths: ["name", "monitor_ids", "slack"] },
    });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ name\s+= "Renamed by hand" -> "Slack"/);
    expect(plan.stdout).toContain(`- "${monitorId}"`);
    expect(plan.stdout).not.toContain("webhook_url");
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    await tf.apply();
    expect(await getChannel(ids.slack!)).toMatchObject({ name: "Slack", monitorIds: [] });
    await tf.plan(0);
  });

  it("shows a secret changed outside Terraform as drift, and puts the configured one back", async () => {
    await notifications().updateNotification({
      id: ids.slack!,
      notification: { providerType: "slack", provider: { case: "slack", value: { webhookUrl: "https://hooks.slack.com/services/T0001/B0001/by-hand" } } },
      updateMask: { paths: ["slack"] },
    });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ webhook_url = \(sensitive value\)/);
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    await tf.apply();
    expect((await getChannel(ids.slack!)).secretFingerprints).toEqual({ webhookUrl: secretFingerprint(ids.slack!, SLACK_URL_NEW) });
    await tf.plan(0);
  });

  it("imports channels with no changes planned after it; an imported secret is written once, as the API answers it only redacted", async () => {
    for (const name of ["hook", "email"]) {
      await tf.reimport(`service_notification.${name}`, ids[name]!);
    }
    await tf.plan(0);

    await tf.reimport("service_notification.slack", ids.slack!);
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ webhook_url = \(sensitive value\)/);
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    await tf.apply();
    await tf.plan(0);
  });

  it("plans to create again a channel deleted outside Terraform", async () => {
    await notifications().deleteNotification({ id: ids.slack! });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_notification.slack will be created");
    await tf.apply();
    const id = String((await stateOf("slack"))?.id);
    expect(id).not.toBe(ids.slack);
    expect((await getChannel(id)).secretFingerprints).toEqual({ webhookUrl: secretFingerprint(id, SLACK_URL_NEW) });
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    const { notifications: left, totalSize } = await notifications().listNotifications({ limit: 100 });
    expect({ left, totalSize }).toEqual({ left: [], totalSize: 0 });
  });
});

describe("service_notification plan-time errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of a bad block or value", async () => {
    await tf.configure(
      `
resource "service_notification" "mismatch" {
  provider_type = "slack"
  webhook {
    endpoint = "https://hooks.example.com/vigil"
  }
}

resource "service_notification" "two" {
  provider_type = "discord"
  discord {
    webhook_url = "https://discord.com/api/webhooks/1/abc"
  }
  google_chat {
    webhook_url = "https://chat.googleapis.com/v1/spaces/x/messages"
  }
}

resource "service_notification" "sms" {
  provider_type = "sms"
  sms {
    phone_number = "555-0100"
  }
}

resource "service_notification" "fax" {
  provider_type = "fax"
}
`,
    );
    // Terraform wraps the details to its terminal width.
    const stderr = (await tf.expectExit(1, "plan")).stderr.replace(/\s+/g, " ");
    expect(stderr).toContain("provider_type is slack: a slack block is required");
    expect(stderr).toContain("webhook is not allowed: provider_type is slack, and a channel has exactly one provider block");
    expect(stderr).toContain("google_chat is not allowed: provider_type is discord");
    expect(stderr).toContain("Invalid value for sms.phone_number");
    expect(stderr).toContain("sms.phone_number must be an E.164 phone number such as +15558675310");
    expect(stderr).toContain('32: phone_number = "555-0100"');
    expect(stderr).toContain("provider_type must be one of discord, email, slack");
    expect(await notifications().listNotifications({})).toMatchObject({ totalSize: 0 });
  });
});
