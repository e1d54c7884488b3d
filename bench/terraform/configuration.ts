// The objects of the Terraform benchmark (issue 11), written twice from one description: as a
// Terraform configuration for the provider and as the vigil.yaml `vigil apply` reads. 50 monitors
// (HTTP and TCP), 5 Slack and webhook channels each sending the alerts of 10 monitors, and a status
// page with a group and 20 components (17 showing monitors, 3 static). Every target and channel URL
// names a host under example.com, and no monitor is active (the default), so nothing is contacted.
import { stringify } from "yaml";

export const MONITORS = 50;
export const CHANNELS = 5;
export const COMPONENTS = 20;
const STATIC_COMPONENTS = 3;
/** The creates an apply makes from empty: monitors, channels, the page, its group and its components. */
export const CREATES = MONITORS + CHANNELS + 1 + 1 + COMPONENTS;

const PERIODICITIES = ["30s", "1m", "5m", "10m"];

interface Monitor {
  key: string;
  type: "http" | "tcp";
  name: string;
  periodicity: string;
  target: string;
  /** HTTP only: expects a 200. */
  expectOk: boolean;
}

interface Channel {
  key: string;
  name: string;
  kind: "slack" | "webhook";
  url: string;
  monitors: string[];
}

interface Component {
  key: string;
  monitor?: string;
  name?: string;
  order: number;
}

function monitors(): Monitor[] {
  return Array.from({ length: MONITORS }, (_, i) => {
    const common = { key: `svc_${String(i).padStart(2, "0")}`, name: `Service ${i}`, periodicity: PERIODICITIES[i % PERIODICITIES.length]! };
    return i % 5 === 4
      ? { ...common, type: "tcp", target: `db-${i}.example.com:5432`, expectOk: false }
      : { ...common, type: "http", target: `https://service-${i}.example.com/health`, expectOk: i % 2 === 0 };
  });
}

function channels(all: Monitor[]): Channel[] {
  const perChannel = MONITORS / CHANNELS;
  return Array.from({ length: CHANNELS }, (_, c) => ({
    key: `team_${c}`,
    name: `Team ${c}`,
    kind: c % 2 === 0 ? "slack" : "webhook",
    url: c % 2 === 0 ? `https://hooks.example.com/services/T0001/B${c}/secret` : `https://hooks.example.com/vigil/${c}`,
    monitors: all.slice(c * perChannel, (c + 1) * perChannel).map((m) => m.key),
  }));
}

function components(all: Monitor[]): Component[] {
  return Array.from({ length: COMPONENTS }, (_, k) =>
    k < COMPONENTS - STATIC_COMPONENTS ? { key: all[k]!.key, monitor: all[k]!.key, order: k } : { key: `note_${k}`, name: `Partner service ${k}`, order: k },
  );
}

/** The page's slug, unique across workspaces: each measurement's files end it with their own suffix. */
const slugOf = (suffix: string) => `bench-terraform-${suffix}`;

/** main.tf, talking to `baseUrl`; the token comes from SERVICE_API_TOKEN. */
export function terraformConfiguration(baseUrl: string, suffix: string): string {
  const all = monitors();
  const addressOf = new Map(all.map((m) => [m.key, `service_${m.type}_monitor.${m.key}`]));
  const blocks = [
    `terraform {\n  required_providers {\n    service = { source = "vigil/service", version = "~> 0.1" }\n  }\n}\n\nprovider "service" {\n  base_url = "${baseUrl}"\n}`,
    ...all.map((m) =>
      [
        `resource "service_${m.type}_monitor" "${m.key}" {`,
        `  name        = "${m.name}"`,
        `  ${m.type === "http" ? "url" : "uri"}         = "${m.target}"`,
        `  periodicity = "${m.periodicity}"`,
        ...(m.expectOk ? ["  status_code_assertions {", "    target     = 200", '    comparator = "eq"', "  }"] : []),
        "}",
      ].join("\n"),
    ),
    ...channels(all).map((c) =>
      [
        `resource "service_notification" "${c.key}" {`,
        `  name          = "${c.name}"`,
        `  provider_type = "${c.kind}"`,
        `  monitor_ids   = [${c.monitors.map((key) => `${addressOf.get(key)}.id`).join(", ")}]`,
        `  ${c.kind} {`,
        `    ${c.kind === "slack" ? "webhook_url" : "endpoint"} = "${c.url}"`,
        "  }",
        "}",
      ].join("\n"),
    ),
    `resource "service_status_page" "main" {\n  title = "Status"\n  slug  = "${slugOf(suffix)}"\n}`,
    `resource "service_status_page_component_group" "core" {\n  page_id = service_status_page.main.id\n  name    = "Core"\n}`,
    ...components(all).map((c) =>
      [
        `resource "service_status_page_component" "${c.key}" {`,
        "  page_id  = service_status_page.main.id",
        `  type     = "${c.monitor ? "monitor" : "static"}"`,
        c.monitor ? `  monitor_id = ${addressOf.get(c.monitor)}.id` : `  name     = "${c.name}"`,
        "  group_id = service_status_page_component_group.core.id",
        `  order    = ${c.order}`,
        "}",
      ].join("\n"),
    ),
  ];
  return `${blocks.join("\n\n")}\n`;
}

/** vigil.yaml of the same objects. */
export function vigilFile(suffix: string): string {
  const all = monitors();
  const file = {
    project: "bench-terraform",
    monitors: Object.fromEntries(
      all.map((m) => [
        m.key,
        {
          type: m.type,
          name: m.name,
          periodicity: m.periodicity,
          ...(m.type === "http" ? { url: m.target } : { uri: m.target }),
          ...(m.expectOk && { statusCodeAssertions: [{ comparator: "eq", target: 200 }] }),
        },
      ]),
    ),
    notifications: Object.fromEntries(
      channels(all).map((c) => [c.key, { name: c.name, monitors: c.monitors, [c.kind]: c.kind === "slack" ? { webhookUrl: c.url } : { endpoint: c.url } }]),
    ),
    statusPages: {
      main: {
        title: "Status",
        slug: slugOf(suffix),
        groups: { core: { name: "Core" } },
        components: Object.fromEntries(
          components(all).map((c) => [
            c.key,
            c.monitor ? { type: "monitor", monitor: c.monitor, group: "core", order: c.order } : { type: "static", name: c.name, group: "core", order: c.order },
          ]),
        ),
      },
    },
  };
  return `# Written by bench/terraform.ts\n${stringify(file)}`;
}
