import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { AdminService } from "@vigil/proto/admin";
import { createTestDatabase } from "../../../test/postgres";
import { runNode, startService, type ServiceProcess } from "./support/processes";

interface PrintedEntry {
  at: string;
  workspaceSlug: string;
  actorType: string;
  apiKeyId?: string;
  apiKeyPrefix?: string;
  method: string;
  targetKind: string;
  targetId: string;
  changes?: Record<string, unknown>;
}

const jsonLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PrintedEntry);

/** The admin command's own mutations are audited, and `audit` prints the log, filtered, newest first. */
function itAuditsTheAdminCommand(admin: (...args: string[]) => { code: number | null; stdout: string; stderr: string }) {
  let keyId = "";
  let secret = "";

  it("records workspace and key creation and revocation, not listings", () => {
    expect(admin("workspace", "create", "--name", "Acme", "--slug", "acme")).toMatchObject({ code: 0 });
    const created = JSON.parse(admin("--json", "key", "create", "--workspace", "acme", "--scope", "read", "--name", "dashboards").stdout);
    keyId = created.apiKey.id;
    secret = created.key;
    expect(admin("key", "list", "--workspace", "acme")).toMatchObject({ code: 0 });
    expect(admin("workspace", "list")).toMatchObject({ code: 0 });
    expect(admin("key", "revoke", keyId)).toMatchObject({ code: 0 });

    const printed = admin("audit", "--json", "--workspace", "acme");
    expect(printed.code).toBe(0);
    const entries = jsonLines(printed.stdout);
    expect(entries.map(({ method, targetKind, actorType, workspaceSlug }) => ({ method, targetKind, actorType, workspaceSlug }))).toEqual([
      { method: "vigil.admin.v1.AdminService/RevokeApiKey", targetKind: "ApiKey", actorType: "admin", workspaceSlug: "acme" },
      { method: "vigil.admin.v1.AdminService/CreateApiKey", targetKind: "ApiKey", actorType: "admin", workspaceSlug: "acme" },
      { method: "vigil.admin.v1.AdminService/CreateWorkspace", targetKind: "Workspace", actorType: "admin", workspaceSlug: "acme" },
    ]);
    expect(entries.slice(0, 2).map((e) => e.targetId)).toEqual([keyId, keyId]);
    expect(entries[1]!.changes).toEqual({ workspaceSlug: "acme", name: "dashboards", scope: "read" });
    expect(printed.stdout).not.toContain(secret);
  });

  it("has exercised every mutating method of the admin service", () => {
    const mutating = AdminService.methods.filter((m) => m.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS).map((m) => m.name);
    expect(mutating.sort()).toEqual(["CreateApiKey", "CreateWorkspace", "InviteUser", "RevokeApiKey"]);
  });

  it("prints an invitation link for a person, refuses a bad role, and audits the invitation without its token", () => {
    expect(admin("workspace", "create", "--name", "People", "--slug", "people")).toMatchObject({ code: 0 });
    const invited = admin("--json", "user", "invite", "--email", "Ada@Example.com", "--workspace", "people", "--role", "owner");
    expect(invited.code).toBe(0);
    const answer = JSON.parse(invited.stdout) as { inviteUrl: string; token: string };
    expect(answer).toEqual({ inviteUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/app\/invite\?token=[A-Za-z0-9_-]{43}$/), token: expect.any(String) });
    expect(answer.inviteUrl.endsWith(`token=${answer.token}`)).toBe(true);
    expect(admin("user", "invite", "--email", "b@example.com", "--workspace", "people", "--role", "boss")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("role: must be one of owner, admin, editor, viewer"),
    });

    const printed = admin("audit", "--json", "--workspace", "people");
    const [entry] = jsonLines(printed.stdout);
    expect(entry).toMatchObject({ method: "vigil.admin.v1.AdminService/InviteUser", actorType: "admin", workspaceSlug: "people" });
    expect(entry!.changes).toEqual({ workspaceSlug: "people", email: "Ada@Example.com", role: "owner" });
    expect(printed.stdout).not.toContain(answer.token);
  });

  it("prints a table, and filters by time and count", () => {
    const table = admin("audit", "--workspace", "acme");
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split("\n");
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT.*\\tacme\\tadmin\\tvigil.admin.v1.AdminService/RevokeApiKey\\tApiKey ${keyId}\\t`));

    expect(jsonLines(admin("audit", "--json", "--workspace", "acme", "--limit", "1").stdout)).toHaveLength(1);
    expect(jsonLines(admin("audit", "--json", "--workspace", "acme", "--since", "1h").stdout)).toHaveLength(3);
    expect(jsonLines(admin("audit", "--json", "--since", "2999-01-01T00:00:00Z").stdout)).toEqual([]);
  });

  it("explains bad options and exits non-zero", () => {
    expect(admin("audit", "--limit", "20000")).toMatchObject({ code: 1, stderr: expect.stringContaining("limit: must be from 1 to 10000") });
    expect(admin("audit", "--since", "yesterday")).toMatchObject({ code: 1, stderr: expect.stringContaining("must be an ISO time") });
    expect(admin("audit", "--workspace", "nope")).toMatchObject({ code: 1, stderr: expect.stringContaining("no workspace with slug nope") });
  });
}

describe("the audit command on PostgreSQL, without a running service", () => {
  let env: NodeJS.ProcessEnv = {};
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    env = { DATABASE_URL: database.url };
    drop = database.drop;
  });
  afterAll(() => drop());

  itAuditsTheAdminCommand((...args) => runNode("admin/main.js", args, env));
});

describe("the audit command through the running service on embedded PGlite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vigil-audit-"));
  const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startService(env);
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  itAuditsTheAdminCommand((...args) => runNode("admin/main.js", args, env));

  it("prints the API's mutations with the key's id and prefix, never the key", async () => {
    const key = /First start: .*\n.*\n\n\s+(vgl_\S+)/.exec(service.stderr())![1]!;
    const res = await fetch(`http://127.0.0.1:${service.port}/monitor.v1.MonitorService/CreateDNSMonitor`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": key },
      body: JSON.stringify({ monitor: { name: "dns", uri: "example.com", periodicity: "PERIODICITY_1M" } }),
    });
    expect(res.status).toBe(200);
    const { monitor } = (await res.json()) as { monitor: { id: string } };

    const printed = runNode("admin/main.js", ["audit", "--json", "--workspace", "default"], env);
    expect(jsonLines(printed.stdout)).toEqual([
      expect.objectContaining({
        method: "monitor.v1.MonitorService/CreateDNSMonitor",
        actorType: "api_key",
        apiKeyPrefix: key.slice(0, 12),
        apiKeyId: expect.any(String),
        targetKind: "DNSMonitor",
        targetId: monitor.id,
        workspaceSlug: "default",
      }),
    ]);
    expect(printed.stdout).not.toContain(key);
  });
});
