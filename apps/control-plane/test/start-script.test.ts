import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { testPrefix } from "../../../test/redis";
import { freePort } from "../../../test/ports";

const root = resolve(__dirname, "../../..");
const script = (name: string) => resolve(root, "scripts", name);

const redisAnswers = (port: number) => spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).stdout.trim() === "PONG";

/** The group still has a member (process.kill with signal 0 only checks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs scripts/start.sh (already built, so without setup) in a process group
 * of its own, the way a terminal runs `npm start`, on free ports and temporary
 * folders, and resolves once the control plane and the agent are up.
 */
function start(redisPort: number, dir: string) {
  const child = spawn("bash", [script("start.sh")], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_OPTIONS: "",
      VIGIL_SKIP_SETUP: "1",
      REDIS_URL: "",
      VIGIL_REDIS_PORT: String(redisPort),
      VIGIL_REDIS_DIR: join(dir, "redis"),
      REDIS_PREFIX: testPrefix(),
      DATABASE_URL: "",
      DATA_DIR: join(dir, "data"),
      PORT: "0",
      HOST: "127.0.0.1",
      AGENT_REGIONS: "hostA-ams",
      AGENT_HEALTH_PORT: "0",
      HEALTH_HOST: "127.0.0.1",
    },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const up = new Promise<void>((resolveUp, reject) => {
    child.stdout.on("data", () => {
      if (output.includes('"msg":"control plane listening"') && output.includes('"msg":"agent started"')) resolveUp();
    });
    void exited.then((code) => reject(new Error(`start.sh exited with ${code} before it was up:\n${output}`)));
  });
  return { pgid: child.pid!, exited, up, output: () => output };
}

describe("scripts/start.sh on Ctrl-C", () => {
  let dir: string;
  let redisPort: number;
  let pgid: number | undefined;

  beforeAll(() => {
    for (const main of ["apps/control-plane/dist/main.js", "apps/agent/dist/main.js"]) {
      if (!existsSync(resolve(root, main))) throw new Error(`${main} is missing; build the workspace with: bash scripts/setup.sh`);
    }
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "vigil-start-"));
    redisPort = await freePort();
    pgid = undefined;
  });

  afterEach(() => {
    if (pgid !== undefined && groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
    spawnSync("redis-cli", ["-p", String(redisPort), "shutdown"]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function interrupt(run: ReturnType<typeof start>) {
    pgid = run.pgid;
    await run.up;
    process.kill(-run.pgid, "SIGINT");
    await run.exited;
    // start.sh waits for its services before it exits, so none is left behind.
    expect(groupAlive(run.pgid)).toBe(false);
  }

  it("stops the services and the redis-server it started, which shuts down cleanly", async () => {
    const run = start(redisPort, dir);
    await interrupt(run);
    expect(run.output()).toContain("stopping the redis-server started here");
    // A local start opens the private ranges to the SSRF guard, and says so.
    expect(run.output()).toContain("[start] ALLOW_PRIVATE_TARGETS=true: checks and webhooks may reach loopback and private addresses");
    expect(redisAnswers(redisPort)).toBe(false);
    // Redis logs this only after it has synced its append-only file and saved a snapshot.
    expect(readFileSync(join(dir, "redis", "redis.log"), "utf8")).toContain("Redis is now ready to exit");
  });

  it("leaves alone a Redis that already answered on its port", async () => {
    execFileSync("bash", [script("ensure-redis.sh")], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, REDIS_URL: "", VIGIL_REDIS_PORT: String(redisPort), VIGIL_REDIS_DIR: join(dir, "redis") },
    });
    const run = start(redisPort, dir);
    await interrupt(run);
    expect(run.output()).not.toContain("stopping the redis-server");
    expect(redisAnswers(redisPort)).toBe(true);
  });
});
