import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** Heartbeat monitors through the built CLI: `monitors create heartbeat`, get, list, update, and `vigil ping`. */
describe("vigil: heartbeat monitors", () => {
  const cli = cliWorkspace("heartbeat");
  const { ok, okJson } = cli;

  it("creates one with its schedule, shows it, lists it and updates it", async () => {
    const { monitor } = await okJson(["monitors", "create", "heartbeat", "--name", "backup", "--cron", "0 3 * * *", "--timezone", "Europe/Paris", "--grace", "600", "--active"]);
    expect(monitor).toMatchObject({ name: "backup", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: "600", active: true });
    expect(monitor.pingUrl).toMatch(new RegExp(`^https://vigil\\.test/v1/ping/[A-Za-z0-9_-]{32}$`));
    const shown = (await ok(["monitors", "get", monitor.id])).stdout;
    expect(shown).toMatch(/^type\s+heartbeat$/m);
    expect(shown).toMatch(/^cron\s+0 3 \* \* \*$/m);
    const listed = (await ok(["monitors", "list"])).stdout;
    expect(listed).toMatch(new RegExp(`${monitor.id}\\s+heartbeat\\s+backup\\s+${monitor.pingUrl.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\s+0 3 \\* \\* \\* \\(Europe/Paris\\)`));
    const updated = await okJson(["monitors", "update", monitor.id, "--period", "300"]);
    expect(updated.monitor).toMatchObject({ periodSeconds: "300", cron: "", graceSeconds: "600" });
  });

  it("refuses a bad value with the API's words, and a flag of another kind", async () => {
    const run = await vigil(["monitors", "create", "heartbeat", "--name", "job", "--period", "10"], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("monitor.periodSeconds: must be an integer from 30 to 2678400");
    const { monitor } = await okJson(["monitors", "create", "heartbeat", "--name", "job"]);
    const other = await vigil(["monitors", "update", monitor.id, "--url", "https://example.com"], cli.env());
    expect(other.code).not.toBe(0);
  });

  it("vigil ping reports runs without an API key, by token or by URL; a bad token fails the command", async () => {
    const { monitor } = await okJson(["monitors", "create", "heartbeat", "--name", "job", "--active"]);
    const token = monitor.pingUrl.split("/").pop();
    await ok(["ping", token, "--start"], "");
    await ok(["ping", token, "--exit-code", "0", "--body", "3 files"], "");
    // The ping URL answered to the API is under PUBLIC_URL; given whole, the URL is used as it is.
    await ok(["ping", `${cli.api.baseUrl}/v1/ping/${token}`, "--fail"], "");
    const { pings } = await cli.api.client(cli.ws.read.key).listHeartbeatPings({ id: monitor.id });
    expect(pings.map((p) => [p.kind, p.exitCode, p.body, p.method])).toEqual([
      ["fail", undefined, "", "GET"],
      ["success", 0, "3 files", "POST"],
      ["start", undefined, "", "GET"],
    ]);
    const bad = await vigil(["ping", "A".repeat(32)], cli.env(""));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("the ping was refused (404): no heartbeat monitor has this ping URL");
    const both = await vigil(["ping", token, "--start", "--fail"], cli.env(""));
    expect(both.stderr).toContain("give one of --start, --fail and --exit-code");
  });
});
