import { writeFile } from "node:fs/promises";
import { fileSchemaValidator } from "./support/file-schema.js";
import { join } from "node:path";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { parse } from "yaml";
import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** Maintenance windows in vigil.yaml: they name the file's monitors by key and its page components by `<page>/<component>`. */
const FILE = `
project: ops
monitors:
  web:
    type: http
    name: Web
    url: https://web.example.com/health
    periodicity: 1m
  api:
    type: http
    name: API
    url: https://api.example.com/health
    periodicity: 1m
statusPages:
  public:
    title: Ops status
    slug: ops-status-SUFFIX
    components:
      web: { type: monitor, monitor: web }
maintenanceWindows:
  upgrade:
    title: Database upgrade
    message: Writes pause for a few minutes.
    startsAt: 2026-12-06T01:00:00Z
    endsAt: 2026-12-06T03:00:00+00:00
    recurrence: FREQ=WEEKLY;BYDAY=SU
    timezone: Europe/Paris
    monitors: [web, api]
    components: [public/web]
`;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("vigil plan, apply and export: maintenance windows", () => {
  const cli = cliWorkspace("maintenance-code");
  let file: string;
  let text: string;

  beforeAll(() => {
    file = join(cli.dir, "vigil.yaml");
    text = FILE.replaceAll("SUFFIX", cli.ws.slug);
  });

  const write = (content: string) => writeFile(file, content);
  const plan = () => vigil(["plan", "-f", file], cli.env());
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const planJson = async (): Promise<any> => cli.okJson(["plan", "-f", file]);
  const windows = async () => (await cli.api.maintenanceClient(cli.ws.write.key).listMaintenanceWindows({ limit: 100 })).maintenances;
  async function monitorIds() {
    const { httpMonitors } = await cli.api.client(cli.ws.write.key).listMonitors({ limit: 100 });
    return new Map(httpMonitors.map((m) => [m.externalId, m.id]));
  }

  it("plans a window's creation with the monitors and page it names", async () => {
    await write(text);
    const run = await cli.ok(["plan", "-f", file]);
    expect(run.stdout).toContain(`+ maintenanceWindows.upgrade ("Database upgrade")`);
    expect(run.stdout).toContain("Plan: 5 to create, 0 to change, 0 to replace, 0 to delete.");
    expect(await windows()).toEqual([]);
  });

  it("applies it after its monitors and component, recording its key", async () => {
    const applied = await cli.ok(["apply", "-f", file]);
    expect(applied.stdout).toMatch(/Applied: 5 created, 0 changed, 0 replaced, 0 deleted\.\n$/);
    const monitors = await monitorIds();
    const { statusPages } = await cli.api.statusPageClient(cli.ws.write.key).listStatusPages({});
    const { components } = await cli.api.statusPageClient(cli.ws.write.key).listStatusPageComponents({ pageId: statusPages[0]!.id });
    const [window] = await windows();
    expect(window).toMatchObject({
      externalId: "ops/upgrade",
      title: "Database upgrade",
      message: "Writes pause for a few minutes.",
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
      timezone: "Europe/Paris",
      pageComponentIds: [components[0]!.id],
    });
    expect(new Set(window!.monitorIds)).toEqual(new Set([monitors.get("ops/web"), monitors.get("ops/api")]));
    expect(timestampDate(window!.startsAt!).toISOString()).toBe("2026-12-06T01:00:00.000Z");
    expect(timestampDate(window!.endsAt!).toISOString()).toBe("2026-12-06T03:00:00.000Z");
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
  });

  it("takes a monitor's or component's id for its key: the same window, no change", async () => {
    const monitors = await monitorIds();
    const [window] = await windows();
    await write(text.replace("monitors: [web, api]", `monitors: [web, ${monitors.get("ops/api")}]`).replace("components: [public/web]", `components: [${window!.pageComponentIds[0]}]`));
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
  });

  it("names the new monitor when one it names is replaced", async () => {
    const asTcp = text.replace("type: http\n    name: API\n    url: https://api.example.com/health", "type: tcp\n    name: API\n    uri: api.example.com:443");
    for (const [content, kind] of [[asTcp, "tcp"], [text, "http"]] as const) {
      await write(content);
      const run = await cli.ok(["plan", "-f", file]);
      expect(run.stdout).toContain(`-/+ monitors.api replace: type changes from ${kind === "tcp" ? "http to tcp" : "tcp to http"}`);
      expect(run.stdout).toContain(`~ maintenanceWindows.upgrade\n      monitors: ["web","api (replaced)"] → ["web","api"]`);
      await cli.ok(["apply", "-f", file]);
      const { httpMonitors, tcpMonitors } = await cli.api.client(cli.ws.write.key).listMonitors({ limit: 100 });
      const api = [...httpMonitors, ...tcpMonitors].find((m) => m.externalId === "ops/api")!;
      expect((await windows())[0]!.monitorIds).toContain(api.id);
      expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    }
  });

  it("plans a change field by field and applies it in place", async () => {
    const [before] = await windows();
    await write(text.replace("title: Database upgrade", "title: Database upgrade to 17").replace("monitors: [web, api]", "monitors: [web]").replace("2026-12-06T03:00:00+00:00", "2026-12-06T04:00:00Z"));
    const run = await cli.ok(["plan", "-f", file]);
    expect(run.stdout).toContain(
      `~ maintenanceWindows.upgrade\n      title: "Database upgrade" → "Database upgrade to 17"\n      endsAt: "2026-12-06T03:00:00Z" → "2026-12-06T04:00:00Z"\n      monitors: ["web","api"] → ["web"]`,
    );
    expect(run.stdout).toContain("Plan: 0 to create, 1 to change, 0 to replace, 0 to delete.");
    await cli.ok(["apply", "-f", file]);
    const [after] = await windows();
    expect(after).toMatchObject({ id: before!.id, title: "Database upgrade to 17", monitorIds: [(await monitorIds()).get("ops/web")] });
    expect((await planJson()).summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
  });

  it("exports windows, defaults left out, so that a plan of the export is empty", async () => {
    const exported = (await cli.ok(["export", "--project", "ops"])).stdout;
    expect(parse(exported).maintenanceWindows).toEqual({
      upgrade: {
        title: "Database upgrade to 17",
        message: "Writes pause for a few minutes.",
        startsAt: "2026-12-06T01:00:00Z",
        endsAt: "2026-12-06T04:00:00Z",
        recurrence: "FREQ=WEEKLY;BYDAY=SU",
        timezone: "Europe/Paris",
        monitors: ["web"],
        components: ["public/web"],
      },
    });
    // The schema `vigil schema` prints takes windows as the file writes them.
    const validate = fileSchemaValidator((await cli.ok(["schema"])).stdout);
    expect(validate(parse(exported)) ? [] : validate.errors).toEqual([]);
    expect(validate({ maintenanceWindows: { x: { title: "T", startsAt: "2026-12-06T01:00:00Z", endsAt: "2026-12-06T02:00:00Z", monitorIds: [] } } })).toBe(false);
    const exportFile = join(cli.dir, "exported.yaml");
    // Another project adopts every object by id and names its own keys.
    for (const args of [["export", "--project", "ops"], ["export"]]) {
      await writeFile(exportFile, (await cli.ok(args)).stdout);
      const planned = await vigil(["plan", "-f", exportFile, "--detailed-exitcode"], cli.env());
      expect({ args, ...planned }).toMatchObject({ code: 0, stderr: "", stdout: expect.stringContaining("No changes") });
    }
  });

  it("refuses a bad RRULE, an end before the start and a component the file lacks, naming each entry's field and line", async () => {
    await write(
      text
        .replace("FREQ=WEEKLY;BYDAY=SU", "FREQ=WEEKLY;BYDAI=SU")
        .replace("2026-12-06T03:00:00+00:00", "2026-12-06T00:00:00Z"),
    );
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${escape(file)}:\\d+:\\d+: maintenanceWindows\\.upgrade\\.recurrence: must be an RFC 5545 RRULE: BYDAI is not a rule part`));
    expect(run.stderr).toMatch(new RegExp(`${escape(file)}:\\d+:\\d+: maintenanceWindows\\.upgrade\\.endsAt: must be after startsAt`));

    // References between entries are checked once every entry is well formed.
    await write(text.replace("components: [public/web]", "components: [public/nope, staff/web]"));
    const references = await plan();
    expect(references.code).toBe(1);
    expect(references.stderr).toMatch(new RegExp(`${escape(file)}:\\d+:\\d+: maintenanceWindows\\.upgrade\\.components\\[0\\]: names nope, which is not a component of page public`));
    expect(references.stderr).toMatch(new RegExp(`${escape(file)}:\\d+:\\d+: maintenanceWindows\\.upgrade\\.components\\[1\\]: names page staff, which is not a status page of this file`));

    await write(text.replace("startsAt: 2026-12-06T01:00:00Z", "startsAt: next sunday"));
    expect((await plan()).stderr).toMatch(/maintenanceWindows\.upgrade\.startsAt: must be an RFC 3339 time/);
  });

  it("refuses a key that names no monitor, before anything is written", async () => {
    await write(text.replace("title: Database upgrade", "title: Changed").replace("monitors: [web, api]", "monitors: [web, nope]"));
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("maintenanceWindows.upgrade.monitors[1]: names nope, which is neither a monitor of this file nor the id of one in this workspace");
    const applied = await vigil(["apply", "-f", file], cli.env());
    expect(applied.code).toBe(1);
    expect((await windows())[0]!.title).toBe("Database upgrade to 17");
  });

  it("plans the deletion of a window the file no longer has, and deletes it before what it names", async () => {
    const [window] = await windows();
    await write(text.slice(0, text.indexOf("maintenanceWindows:")).replace(/  api:\n(    .*\n)+/, ""));
    const run = await cli.ok(["plan", "-f", file]);
    expect(run.stdout).toContain(`- maintenanceWindows.upgrade (id ${window!.id})`);
    expect(run.stdout).toContain("- monitors.api");
    expect(run.stdout).toContain("Plan: 0 to create, 0 to change, 0 to replace, 2 to delete.");
    await cli.ok(["apply", "-f", file]);
    expect(await windows()).toEqual([]);
    expect([...(await monitorIds()).keys()]).toEqual(["ops/web"]);
  });
});
