import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { DelayingProxy } from "./support/delaying-proxy.js";
import { providerConfig, TerraformDir, terraformTests } from "./support/terraform.js";

/** Longer than any prompt stop, shorter than the client's own call deadline (30 s), so only an abort ends a held create early. */
const HOLD_MS = 15_000;

/** One monitor created first, then three that wait for it: their creates are the ones held when Ctrl-C comes. */
const NAMES = ["first", "second", "third", "fourth"];
const MONITORS = NAMES.map(
  (name, index) => `
resource "service_tcp_monitor" "${name}" {
  name        = "${name}"
  uri         = "${name}.example.com:443"
  periodicity = "1m"${index === 0 ? "" : "\n  depends_on  = [service_tcp_monitor.first]"}
}
`,
).join("");

interface RunProcess {
  pid: number;
  command: string;
}

/** The live processes whose environment carries `marker`: a terraform run and the providers it started. */
function processesOf(marker: string): RunProcess[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker)) return [];
        return [{ pid: Number(pid), command: readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ") }];
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });
}

const fx = terraformTests();
const tf = TerraformDir.forTests();
let proxy: DelayingProxy;

beforeAll(async () => {
  proxy = await DelayingProxy.start(fx.api.baseUrl, { delayed: /^\/monitor\.v1\.MonitorService\/Create/, holdMs: HOLD_MS, passFirst: 1 });
  await tf.write(providerConfig(proxy.baseUrl, fx.ws.write.key) + MONITORS);
});
afterAll(() => proxy?.stop());

const monitorsInApi = async () => {
  const { tcpMonitors } = await fx.client().listMonitors({ limit: 100 });
  return tcpMonitors.map((monitor) => ({ id: monitor.id, name: String(monitor.name) })).sort((a, b) => a.name.localeCompare(b.name));
};

describe("Ctrl-C during terraform apply", () => {
  it("stops promptly, leaves no provider running and a state holding exactly what was created", async () => {
    const runId = randomUUID();
    const marker = `VIGIL_INTERRUPT_RUN=${runId}`;
    const run = tf.run(["apply", "-auto-approve", "-no-color"], { VIGIL_INTERRUPT_RUN: runId });
    let releasedAtExit = -1;
    const finished = run.then((result) => ((releasedAtExit = proxy.released), result));

    const held = await Promise.race([proxy.firstHeld().then(() => true), finished.then(() => false)]);
    if (!held) throw new Error(`terraform finished before any create was held:\n${(await finished).stdout}`);
    // A terminal's Ctrl-C signals the whole foreground group: terraform and the providers it started.
    const signalled = processesOf(marker);
    expect(signalled.some((p) => p.command.includes("terraform-provider-service"))).toBe(true);
    for (const { pid } of signalled) {
      try {
        process.kill(pid, "SIGINT");
      } catch {
        // already gone: Terraform ends providers it no longer needs
      }
    }
    const result = await finished;

    // Terraform waited for no held create: the provider gave each up when asked to stop.
    expect(releasedAtExit).toBe(0);
    expect(result.code).not.toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain("Interrupt received");
    // Each held create failed as canceled rather than waiting out the proxy or the client's deadline.
    expect(output).toMatch(/Could not create service_tcp_monitor[\s\S]*canceled/);
    expect(processesOf(marker)).toEqual([]);

    const { stdout } = await tf.expectExit(0, "state list");
    expect(stdout.trim().split("\n")).toEqual(["service_tcp_monitor.first"]);
    const state = await tf.stateOf("service_tcp_monitor.first");
    expect(await monitorsInApi()).toEqual([{ id: state?.id, name: "first" }]);
  });

  it("completes with a following apply, creating no duplicates, and plans no changes after it", async () => {
    proxy.holding = false;
    await tf.apply();
    await tf.plan(0);
    const monitors = await monitorsInApi();
    expect(monitors.map((monitor) => monitor.name)).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      expect(monitors.find((monitor) => monitor.name === name)?.id).toBe((await tf.stateOf(`service_tcp_monitor.${name}`))?.id);
    }
  });
});
