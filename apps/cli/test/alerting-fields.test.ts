import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** A monitor's alertQuorum, confirmations and recoveryConfirmations through the built CLI: flags, and vigil.yaml plan/apply/export. */
describe("vigil: per-monitor alerting fields", () => {
  const cli = cliWorkspace("alerting");
  const { ok, okJson } = cli;

  it("create and update take --alert-quorum, --confirmations and --recovery-confirmations for every kind", async () => {
    const regions = ["--region", "hostA-ams", "--region", "hostB-fra"];
    const flags = ["--alert-quorum", "2", "--confirmations", "3", "--recovery-confirmations", "2"];
    const http = await okJson(["monitors", "create", "http", "--name", "web", "--url", "https://example.com", "--periodicity", "1m", ...regions, ...flags]);
    const tcp = await okJson(["monitors", "create", "tcp", "--name", "db", "--uri", "db.example.com:5432", "--periodicity", "1m", ...regions, ...flags]);
    const dns = await okJson(["monitors", "create", "dns", "--name", "ns", "--uri", "example.com", "--periodicity", "1m", ...regions, ...flags]);
    for (const { monitor } of [http, tcp, dns]) expect(monitor).toMatchObject({ alertQuorum: "2", confirmations: "3", recoveryConfirmations: "2" });

    const table = (await ok(["monitors", "get", tcp.monitor.id])).stdout;
    expect(table).toMatch(/^alertQuorum\s+2$/m);
    expect(table).toMatch(/^confirmations\s+3$/m);

    const updated = await okJson(["monitors", "update", http.monitor.id, "--alert-quorum", "all", "--confirmations", "1"]);
    expect(updated.monitor).toMatchObject({ alertQuorum: "all", confirmations: "1", recoveryConfirmations: "2" });
    // "" gives the choice back to the deployment's ALERT_QUORUM.
    expect((await okJson(["monitors", "update", http.monitor.id, "--alert-quorum", ""])).monitor.alertQuorum).toBe("");
  });

  it("refuses a bad value with the API's words, naming the field", async () => {
    const run = await vigil(["monitors", "create", "tcp", "--name", "db", "--uri", "db.example.com:5432", "--periodicity", "1m", "--confirmations", "11"], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("monitor.confirmations: must be an integer from 1 to 10");
    const quorum = await vigil(["monitors", "create", "tcp", "--name", "db", "--uri", "db.example.com:5432", "--periodicity", "1m", "--alert-quorum", "most"], cli.env());
    expect(quorum.code).not.toBe(0);
    expect(quorum.stderr).toContain("monitor.alertQuorum: must be");
  });

  it("vigil.yaml applies the fields, plans no change after, plans a change of one, and exports what differs from the defaults", async () => {
    const file = join(cli.dir, "vigil.yaml");
    const text = (confirmations: number) => `
project: quiet
monitors:
  web:
    type: http
    name: Web
    url: https://quiet.example.com
    periodicity: 1m
    regions: [hostA-ams, hostB-fra, hostA-iad]
    alertQuorum: majority
    confirmations: ${confirmations}
    recoveryConfirmations: 2
  db:
    type: tcp
    name: Db
    uri: db.quiet.example.com:5432
    periodicity: 1m
`;
    await writeFile(file, text(3));
    await ok(["apply", "-f", file]);
    const { httpMonitors, tcpMonitors } = await cli.api.client(cli.ws.write.key).listMonitors({ limit: 100 });
    expect(httpMonitors.find((m) => m.externalId === "quiet/web")).toMatchObject({ alertQuorum: "majority", confirmations: 3n, recoveryConfirmations: 2n });
    expect(tcpMonitors.find((m) => m.externalId === "quiet/db")).toMatchObject({ alertQuorum: "", confirmations: 1n, recoveryConfirmations: 1n });
    expect((await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env())).code).toBe(0);

    await writeFile(file, text(4));
    const plan = await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/confirmations: 3 → 4/);
    await ok(["apply", "-f", file]);

    const exported = parse((await ok(["export", "--project", "quiet"])).stdout);
    expect(exported.monitors.web).toMatchObject({ alertQuorum: "majority", confirmations: 4, recoveryConfirmations: 2 });
    expect(Object.keys(exported.monitors.db)).not.toEqual(expect.arrayContaining(["alertQuorum"]));
    expect(exported.monitors.db).not.toHaveProperty("confirmations");
  });

  it("vigil.yaml refuses a number quorum above the entry's regions, naming the field", async () => {
    const file = join(cli.dir, "bad.yaml");
    await writeFile(file, `
project: bad
monitors:
  web:
    type: http
    name: Web
    url: https://bad.example.com
    periodicity: 1m
    regions: [hostA-ams]
    alertQuorum: "2"
`);
    const run = await vigil(["plan", "-f", file], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/alertQuorum: must be at most the number of the monitor's regions \(1\), not 2/);
  });
});
