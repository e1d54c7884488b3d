// The vigil.yaml of the benchmark (issue 10): 500 monitors (HTTP, TCP, DNS), 20 channels each sending
// the alerts of 25 monitors, 5 status pages of 2 groups and 20 components each. Every target and
// channel URL names a host under example.com or example.net, and no monitor is active (the default),
// so nothing is contacted. (No loopback addresses: the server refuses them without ALLOW_PRIVATE_TARGETS.)
import { REGION_IDS } from "@vigil/domain";
import { stringify } from "yaml";

export const PROJECT = "bench";
export const MONITORS = 500;
export const CHANNELS = 20;
export const PAGES = 5;
export const GROUPS_PER_PAGE = 2;
export const COMPONENTS_PER_PAGE = 20;
export const STATIC_PER_PAGE = 3;
/** The creates an apply of the file makes from empty. */
export const CREATES = MONITORS + CHANNELS + PAGES + PAGES * GROUPS_PER_PAGE + PAGES * COMPONENTS_PER_PAGE;

/** A page's slug is unique across workspaces: each run's file ends its slugs with this variable. */
export const SLUG_SUFFIX_ENV = "BENCH_SLUG_SUFFIX";
/** Some Slack channels take their webhook from the environment, as a real file would keep a secret out of it. */
export const SLACK_WEBHOOK_ENV = "BENCH_SLACK_WEBHOOK";
export const SLACK_WEBHOOK = "https://hooks.example.com/services/T0001/B0001/from-the-environment";

type Entry = Record<string, unknown>;

export interface WorkspaceFile {
  project: string;
  monitors: Record<string, Entry & { type: "http" | "tcp" | "dns" }>;
  notifications: Record<string, Entry & { monitors: string[] }>;
  statusPages: Record<string, Entry & { groups: Record<string, { name: string }>; components: Record<string, Entry & { monitor?: string; group?: string }> }>;
}

const monitorKey = (i: number) => `svc-${String(i).padStart(3, "0")}`;
const PERIODICITIES = ["30s", "1m", "5m", "10m"];

/** One to four regions, spread over every host. */
const regionsOf = (i: number) => [0, 7, 19, 25].map((offset) => REGION_IDS[(i + offset) % REGION_IDS.length]!).slice(0, 1 + (i % 4));

/** Mostly HTTP, some TCP and DNS; assertions, headers and descriptions on some. */
function monitor(i: number): Entry & { type: "http" | "tcp" | "dns" } {
  const common = { name: `Service ${i}`, periodicity: PERIODICITIES[i % PERIODICITIES.length], regions: regionsOf(i) };
  const description = i % 3 === 0 ? { description: `Checks service ${i} of the shop` } : {};
  if (i % 10 === 7 || i % 10 === 8) {
    return { type: "tcp", ...common, ...description, uri: i % 2 === 0 ? `db-${i}.internal.example.com:5432` : `cache-${i}.example.net:6379` };
  }
  if (i % 10 === 9) {
    return {
      type: "dns",
      ...common,
      uri: `svc-${i}.example.com`,
      ...(i % 20 === 9 && { recordAssertions: [{ record: "A", comparator: "eq", target: "192.0.2.10" }] }),
    };
  }
  return {
    type: "http",
    ...common,
    ...description,
    url: i % 4 === 0 ? `http://internal-${i}.example.net:8080/health` : `https://service-${i}.example.com/health?region=eu`,
    ...(i % 5 === 1 && { method: "POST", body: '{"ping":true}', headers: [{ key: "content-type", value: "application/json" }] }),
    ...(i % 2 === 0 && { statusCodeAssertions: [{ comparator: "eq", target: 200 }] }),
    ...(i % 6 === 0 && { bodyAssertions: [{ comparator: "contains", target: "ok" }] }),
    ...(i % 12 === 0 && { timeout: 10_000, degradedAt: 2_000 }),
  };
}

/** Slack, Discord and webhook channels, which need no deployment settings; channel c sends the alerts of monitors 25c to 25c+24. */
function channel(c: number, monitors: string[]): Entry & { monitors: string[] } {
  const kind = c % 3;
  const linked = { name: `Team ${c}`, monitors };
  if (kind === 0) return { ...linked, slack: { webhookUrl: c % 2 === 0 ? `\${${SLACK_WEBHOOK_ENV}}` : `https://hooks.example.com/services/T0001/B${c}/inline-secret` } };
  if (kind === 1) return { ...linked, discord: { webhookUrl: `https://discord.example.com/api/webhooks/${c}/inline-secret` } };
  return { ...linked, webhook: { endpoint: `https://hooks.example.net/vigil/${c}`, ...(c % 2 === 0 && { headers: [{ key: "x-team", value: `team-${c}` }] }) } };
}

/** Two groups; 17 monitor components (this page's own 20 monitors, the last 3 of them left out) and 3 static ones. */
function page(p: number) {
  const components: Record<string, Entry & { monitor?: string; group?: string }> = {};
  for (let k = 0; k < COMPONENTS_PER_PAGE; k++) {
    const group = k % 3 === 2 ? "edge" : "core";
    if (k < COMPONENTS_PER_PAGE - STATIC_PER_PAGE) {
      const key = monitorKey(p * COMPONENTS_PER_PAGE + k);
      components[key] = { type: "monitor", monitor: key, group, order: k, ...(k % 4 === 0 && { name: `Component ${k}`, description: "What customers see" }) };
    } else {
      components[`note-${k}`] = { type: "static", name: `Partner service ${k}`, group, order: k, groupOrder: k };
    }
  }
  return {
    title: `Status ${p}`,
    slug: `bench-page-${p}-\${${SLUG_SUFFIX_ENV}}`,
    description: `Services of team ${p}`,
    homepageUrl: `https://status-${p}.example.com/`,
    groups: { core: { name: "Core" }, edge: { name: "Edge" } },
    components,
  };
}

export function workspaceFile(): WorkspaceFile {
  const monitorKeys = Array.from({ length: MONITORS }, (_, i) => monitorKey(i));
  const perChannel = MONITORS / CHANNELS;
  return {
    project: PROJECT,
    monitors: Object.fromEntries(monitorKeys.map((key, i) => [key, monitor(i)])),
    notifications: Object.fromEntries(
      Array.from({ length: CHANNELS }, (_, c) => [`team-${c}`, channel(c, monitorKeys.slice(c * perChannel, (c + 1) * perChannel))]),
    ),
    statusPages: Object.fromEntries(Array.from({ length: PAGES }, (_, p) => [`team-${p}`, page(p)])),
  };
}

/** The file as a person would write it: block YAML. */
export const fileText = (file: WorkspaceFile): string => `# Written by bench/monitoring-as-code.ts\n${stringify(file)}`;

/** The file with `${NAME}` replaced from `env`, as the CLI reads it (the file uses no escapes). */
export function withVariables(file: WorkspaceFile, env: Record<string, string>): WorkspaceFile {
  return JSON.parse(JSON.stringify(file), (_key, value: unknown) =>
    typeof value === "string" ? value.replace(/\$\{(\w+)\}/g, (_whole, name: string) => env[name]!) : value,
  ) as WorkspaceFile;
}
