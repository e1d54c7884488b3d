import { readFile, writeFile } from "node:fs/promises";
import { fileSchemaValidator } from "./support/file-schema.js";
import { join } from "node:path";
import { parse } from "yaml";
import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** gRPC monitors through the built CLI: `monitors create grpc`, get, list, update, and vigil.yaml's plan, apply and export. */
describe("vigil: gRPC monitors", () => {
  const cli = cliWorkspace("grpc");
  const { ok, okJson } = cli;

  it("creates one with every gRPC flag, shows it, lists it and updates it", async () => {
    const { monitor } = await okJson([
      "monitors", "create", "grpc",
      "--name", "orders", "--uri", "orders.example.com:443", "--periodicity", "1m",
      "--service", "orders.v1.Orders", "--tls", "--expected-status", "NOT_SERVING",
      "--header", "authorization: Bearer t0ken", "--certificate-expiry-days", "30",
    ]);
    expect(monitor).toMatchObject({
      name: "orders",
      uri: "orders.example.com:443",
      service: "orders.v1.Orders",
      tls: true,
      expectedStatus: "NOT_SERVING",
      headers: [{ key: "authorization", value: "Bearer t0ken" }],
      certificateExpiryDays: "30",
    });
    const shown = (await ok(["monitors", "get", monitor.id])).stdout;
    expect(shown).toMatch(/^type\s+grpc$/m);
    expect(shown).toMatch(/^expectedStatus\s+NOT_SERVING$/m);
    const listed = (await ok(["monitors", "list"])).stdout;
    expect(listed).toMatch(new RegExp(`${monitor.id}\\s+grpc\\s+orders\\s+orders\\.example\\.com:443\\s+1m`));
    const updated = await okJson(["monitors", "update", monitor.id, "--no-tls", "--expected-status", "SERVING", "--service", ""]);
    expect(updated.monitor).toMatchObject({ tls: false, expectedStatus: "SERVING", service: "", name: "orders", certificateExpiryDays: "30" });
  });

  it("refuses a bad value with the API's words, and a flag of another kind", async () => {
    const bad = await vigil(["monitors", "create", "grpc", "--name", "x", "--uri", "x.example.com:50051", "--periodicity", "1m", "--expected-status", "HEALTHY"], cli.env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("monitor.expectedStatus: must be one of SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN");
    const { monitor } = await okJson(["monitors", "create", "grpc", "--name", "x", "--uri", "x.example.com:50051", "--periodicity", "1m"]);
    const other = await vigil(["monitors", "update", monitor.id, "--url", "https://example.com"], cli.env());
    expect(other.code).not.toBe(0);
  });

  it("vigil.yaml: plans, applies and exports a grpc entry, whose export plans no changes and passes the shipped schema", async () => {
    const own = await cli.api.workspace();
    const file = join(cli.dir, "vigil.yaml");
    await writeFile(
      file,
      [
        "project: rpc",
        "monitors:",
        "  orders:",
        "    type: grpc",
        "    name: Orders",
        "    uri: orders.example.com:443",
        "    periodicity: 1m",
        "    tls: true",
        "    service: orders.v1.Orders",
        "    expectedStatus: NOT_SERVING",
        "    headers:",
        "      - { key: x-tenant, value: acme }",
        "",
      ].join("\n"),
    );
    const plan = (await ok(["plan", "-f", file], own.write.key)).stdout;
    expect(plan).toContain(`+ monitors.orders (grpc "Orders")`);
    expect((await ok(["apply", "-f", file], own.write.key)).stdout).toContain("Applied: 1 created, 0 changed, 0 replaced, 0 deleted.");
    const { grpcMonitors } = await cli.api.client(own.write.key).listMonitors({});
    expect(grpcMonitors).toEqual([
      expect.objectContaining({ externalId: "rpc/orders", tls: true, service: "orders.v1.Orders", expectedStatus: "NOT_SERVING", headers: [expect.objectContaining({ key: "x-tenant", value: "acme" })] }),
    ]);
    expect((await ok(["plan", "-f", file], own.write.key)).stdout).toContain("No changes");

    await writeFile(file, (await readFile(file, "utf8")).replace("expectedStatus: NOT_SERVING", "expectedStatus: SERVING"));
    expect((await ok(["plan", "-f", file], own.write.key)).stdout).toContain("~ monitors.orders");
    await ok(["apply", "-f", file], own.write.key);
    expect((await cli.api.client(own.write.key).listMonitors({})).grpcMonitors[0]).toMatchObject({ expectedStatus: "SERVING" });

    const exported = (await ok(["export", "--project", "rpc"], own.write.key)).stdout;
    const parsed = parse(exported);
    // A field at its default is left out; one that differs is written.
    expect(parsed.monitors.orders).toEqual({
      type: "grpc",
      name: "Orders",
      uri: "orders.example.com:443",
      periodicity: "1m",
      tls: true,
      service: "orders.v1.Orders",
      headers: [{ key: "x-tenant", value: "acme" }],
    });
    const validate = fileSchemaValidator((await ok(["schema"])).stdout);
    expect(validate(parsed) ? [] : validate.errors).toEqual([]);
    const exportFile = join(cli.dir, "exported.yaml");
    await writeFile(exportFile, exported);
    expect((await ok(["plan", "-f", exportFile], own.write.key)).stdout).toContain("No changes");
  });

  it("vigil.yaml: a grpc entry's bad field is named with its line", async () => {
    const file = join(cli.dir, "bad.yaml");
    await writeFile(file, "monitors:\n  rpc:\n    type: grpc\n    name: RPC\n    uri: rpc.example.com:50051\n    periodicity: 1m\n    expectedStatus: HEALTHY\n");
    const run = await vigil(["plan", "-f", file], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/bad\.yaml:7:\d+: monitors\.rpc\.expectedStatus: must be one of SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN/s);
  });
});
