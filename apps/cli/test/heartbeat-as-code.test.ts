import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { fileSchemaValidator } from "./support/file-schema.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { vigil, type Run } from "./support/cli.js";

/** Heartbeat monitors in vigil.yaml: planned, applied and exported like the other kinds; the ping URL stays the server's. */
const FILE = `
project: jobs
monitors:
  backup:
    type: heartbeat
    name: Nightly backup
    cron: "0 3 * * *"
    timezone: Europe/Paris
    graceSeconds: 900
    description: pg_dump to the bucket
    active: true
  queue:
    type: heartbeat
    name: Queue worker
    periodSeconds: 120
    public: true
notifications:
  hook:
    webhook:
      endpoint: http://127.0.0.1:9/hook
    monitors: [backup]
`;

describe("vigil plan, apply and export: heartbeat monitors", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    dir = await mkdtemp(join(tmpdir(), "vigil-heartbeat-code-"));
    file = join(dir, "vigil.yaml");
  });
  afterAll(async () => {
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => ({ HOME: dir, SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: ws.write.key });
  const run = (args: string[]) => vigil(args, env());
  async function ok(args: string[]): Promise<Run> {
    const result = await run(args);
    expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining("vigil:") });
    return result;
  }
  const write = (content: string) => writeFile(file, content);
  const noChanges = async (path = file) => {
    const plan = await run(["plan", "-f", path, "--detailed-exitcode"]);
    expect(plan).toMatchObject({ code: 0, stderr: "", stdout: expect.stringContaining("No changes") });
  };
  async function heartbeats() {
    const { heartbeatMonitors } = await api.client(ws.write.key).listMonitors({ limit: 100 });
    return new Map(heartbeatMonitors.map((m) => [m.externalId, m]));
  }

  it("plans and applies heartbeats with a cron schedule or a period, then plans nothing", async () => {
    await write(FILE);
    const plan = await run(["plan", "-f", file, "--detailed-exitcode"]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(`+ monitors.backup (heartbeat "Nightly backup")`);
    expect(plan.stdout).toContain(`+ monitors.queue (heartbeat "Queue worker")`);
    await ok(["apply", "-f", file]);

    const stored = await heartbeats();
    expect(stored.get("jobs/backup")).toMatchObject({ name: "Nightly backup", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 900n, description: "pg_dump to the bucket", active: true, public: false });
    expect(stored.get("jobs/backup")!.periodSeconds).toBeUndefined();
    expect(stored.get("jobs/queue")).toMatchObject({ name: "Queue worker", cron: "", periodSeconds: 120n, graceSeconds: 3600n, active: false, public: true });
    // The server made each ping URL; the file never had one.
    expect(stored.get("jobs/backup")!.pingUrl).toMatch(/\/v1\/ping\/[A-Za-z0-9_-]{32}$/);
    await noChanges();
  });

  it("changes a schedule from one form to the other field by field, keeping the ping URL", async () => {
    const before = (await heartbeats()).get("jobs/queue")!;
    await write(FILE.replace("    periodSeconds: 120\n", '    cron: "*/10 * * * *"\n    graceSeconds: 60\n'));
    const plan = JSON.parse((await ok(["plan", "-f", file, "-o", "json"])).stdout);
    expect(plan.changes).toEqual([
      {
        address: "monitors.queue",
        action: "update",
        id: before.id,
        fields: [
          { field: "periodSeconds", from: 120, to: null },
          { field: "cron", from: "", to: "*/10 * * * *" },
          { field: "graceSeconds", from: 3600, to: 60 },
        ],
      },
    ]);
    await ok(["apply", "-f", file]);
    const after = (await heartbeats()).get("jobs/queue")!;
    expect(after).toMatchObject({ id: before.id, cron: "*/10 * * * *", graceSeconds: 60n, pingUrl: before.pingUrl });
    expect(after.periodSeconds).toBeUndefined();
    await noChanges();
  });

  it("exports heartbeats without their ping URL, valid under the JSON Schema, as a file whose plan is empty", async () => {
    await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "Made by hand", periodSeconds: 3600n } });
    const exported = (await ok(["export", "--project", "jobs"])).stdout;
    expect(exported).not.toContain("/v1/ping/");
    expect(exported).not.toContain("pingUrl");
    const parsed = parse(exported);
    expect(parsed.monitors.backup).toEqual({
      type: "heartbeat",
      name: "Nightly backup",
      cron: "0 3 * * *",
      timezone: "Europe/Paris",
      graceSeconds: 900,
      description: "pg_dump to the bucket",
      active: true,
    });
    expect(parsed.monitors["made-by-hand"]).toEqual({ id: expect.any(String), type: "heartbeat", name: "Made by hand", periodSeconds: 3600 });
    const validate = fileSchemaValidator(await readFile(join(__dirname, "../dist/vigil.schema.json"), "utf8"));
    expect(validate(parsed) ? [] : validate.errors).toEqual([]);

    const exportFile = join(dir, "exported.yaml");
    await writeFile(exportFile, exported);
    await noChanges(exportFile);
  });

  it("names the line and field of a heartbeat the API would refuse, before sending anything", async () => {
    await write("monitors:\n  job:\n    type: heartbeat\n    name: Job\n    periodSeconds: 10\n    url: https://example.com\n");
    const bad = await run(["plan", "-f", file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(":5:20: monitors.job.periodSeconds: must be an integer from 30 to 2678400");
    expect(bad.stderr).toMatch(/:6:\d+: monitors\.job\.url: is not a field here/);

    await write('monitors:\n  job:\n    type: heartbeat\n    name: Job\n    periodSeconds: 60\n    cron: "0 * * * *"\n');
    const both = await run(["plan", "-f", file]);
    expect(both.stderr).toMatch(/:6:\d+: monitors\.job\.cron: must be empty when periodSeconds is given/);

    await write('monitors:\n  job:\n    type: heartbeat\n    name: Job\n    cron: "61 * * * *"\n');
    const cron = await run(["plan", "-f", file]);
    expect(cron.stderr).toMatch(/:5:\d+: monitors\.job\.cron: must be a cron expression of 5 or 6 fields/);

    await write("monitors:\n  job:\n    type: cronjob\n    name: Job\n");
    expect((await run(["plan", "-f", file])).stderr).toContain("type must be one of http, tcp, dns, grpc, heartbeat");
    expect((await heartbeats()).size).toBe(3);
  });
});
