#!/usr/bin/env node
import { existsSync } from "node:fs";
import net from "node:net";
import { Command, InvalidArgumentError } from "commander";
import { toJson } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { applyMigrations, openDatabase } from "@vigil/db";
import { DEFAULTS, LIMITS, TIME_OR_DURATION_RULE, timeOrDurationBack } from "@vigil/domain";
import { AdminService, AuditEntrySchema, type ApiKey, type AuditEntry } from "@vigil/proto/admin";
import { adminSocketPath, loadConfig } from "../config";
import { lockDataDir } from "../data-dir-lock";
import { createLogger } from "@vigil/logging";
import { adminInterceptors, adminService } from "./admin-service";
import { Administration } from "./operations";
import { adminSocketClient } from "./socket";
import { announcingThroughRedis } from "../auth/revocation-relay";

type AdminClient = Client<typeof AdminService>;

const socketAnswers = (path: string) =>
  new Promise<boolean>((resolve) => {
    if (!existsSync(path)) return resolve(false);
    const socket = net.connect(path, () => (socket.end(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

/**
 * Runs `work` against the service's data: through the running service's admin
 * socket when it holds the embedded database, otherwise on the database itself.
 */
async function withAdmin<T>(work: (admin: AdminClient) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const socket = adminSocketPath(config.dataDir);
  if (config.database.kind === "pglite" && (await socketAnswers(socket))) return work(adminSocketClient(socket));

  const lock = config.database.kind === "pglite" ? lockDataDir(config.dataDir) : undefined;
  const db = await openDatabase(config.database, { poolSize: config.databasePoolSize });
  const logger = createLogger("silent", "admin");
  // Control planes on a shared database keep verified keys for a while: a revocation must reach them.
  const revocations = config.database.kind === "postgres" ? announcingThroughRedis(config.redis, config.redisPrefix, logger) : null;
  try {
    await applyMigrations(db);
    const admin = new Administration(db.prisma, revocations);
    const transport = createRouterTransport(({ service }) => service(AdminService, adminService(admin, config.providerSettings.publicUrl)), {
      router: { interceptors: adminInterceptors(admin, logger) },
    });
    return await work(createClient(AdminService, transport));
  } finally {
    revocations?.close();
    await db.close();
    lock?.release();
  }
}

const date = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : "");
const scopesOf = (key: ApiKey) => (key.scopes.length ? key.scopes.join(",") : "none (legacy: acts as write)");

function print(json: boolean, value: unknown, lines: string[]): void {
  console.log(json ? JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2) : lines.join("\n"));
}

const program = new Command("vigil-admin")
  .description("Administer Vigil workspaces and API keys (works while the service runs)")
  .option("--json", "print JSON instead of text");
const json = () => Boolean(program.opts().json);

const workspace = program.command("workspace").description("workspaces");
workspace
  .command("create")
  .requiredOption("--name <name>", "display name")
  .requiredOption("--slug <slug>", "unique short name: lower-case letters, digits, hyphens")
  .option("--plan <plan>", "plan name", "free")
  .action(async (o: { name: string; slug: string; plan: string }) => {
    const { workspace: w } = await withAdmin((a) => a.createWorkspace(o));
    print(json(), w, [`created workspace ${w!.slug} (${w!.name}, plan ${w!.plan})`]);
  });
workspace.command("list").action(async () => {
  const { workspaces } = await withAdmin((a) => a.listWorkspaces({}));
  print(json(), workspaces, workspaces.map((w) => `${w.slug}\t${w.name}\t${w.plan}\t${date(w.createdAt)}`));
});

const key = program.command("key").description("API keys");
key
  .command("create")
  .requiredOption("--workspace <slug>", "workspace slug")
  .requiredOption("--scope <scope>", "read, write, or none for a legacy key that acts as write")
  .option("--name <name>", "a note to recognise the key by", "")
  .action(async (o: { workspace: string; scope: string; name: string }) => {
    const created = await withAdmin((a) => a.createApiKey({ workspaceSlug: o.workspace, scope: o.scope, name: o.name }));
    const k = created.apiKey!;
    print(json(), created, [
      `created API key ${k.id} for ${k.workspaceSlug} with scopes ${scopesOf(k)}`,
      `key (shown once, send it in the x-service-key header): ${created.key}`,
    ]);
  });
key
  .command("list")
  .requiredOption("--workspace <slug>", "workspace slug")
  .action(async (o: { workspace: string }) => {
    const { apiKeys } = await withAdmin((a) => a.listApiKeys({ workspaceSlug: o.workspace }));
    print(
      json(),
      apiKeys,
      apiKeys.map((k) => `${k.id}\t${k.prefix}…\t${scopesOf(k)}\t${k.revokedAt ? `revoked ${date(k.revokedAt)}` : "active"}\t${k.name}`),
    );
  });
key
  .command("revoke")
  .argument("<id>", "key id")
  .action(async (id: string) => {
    const { apiKey } = await withAdmin((a) => a.revokeApiKey({ id }));
    print(json(), apiKey, [`revoked API key ${apiKey!.id} at ${date(apiKey!.revokedAt)}`]);
  });

const user = program.command("user").description("people");
user
  .command("invite")
  .description("print a single-use link (valid 7 days) that makes its holder a member of a workspace with a role")
  .requiredOption("--email <email>", "who the invitation is for")
  .requiredOption("--workspace <slug>", "workspace slug")
  .requiredOption("--role <role>", "owner, admin, editor or viewer")
  .action(async (o: { email: string; workspace: string; role: string }) => {
    const invited = await withAdmin((a) => a.inviteUser({ workspaceSlug: o.workspace, email: o.email, role: o.role }));
    const answer = { inviteUrl: invited.inviteUrl, token: invited.token };
    print(json(), answer, [`invited ${o.email} to ${invited.workspaceSlug} as ${o.role}; the link works once, for 7 days:`, "", `    ${invited.inviteUrl}`]);
  });

const actorOf = (e: AuditEntry) =>
  e.actorType === "api_key"
    ? `key ${e.apiKeyPrefix}… ${e.apiKeyId}${e.apiKeyName ? ` (${e.apiKeyName})` : ""}`
    : e.actorType === "user"
      ? `user ${e.userEmail} ${e.userId}`
      : e.actorType;

/** `--since` takes an ISO time or a duration back from now: 30m, 12h, 7d. */
function parseSince(value: string): Date {
  const at = timeOrDurationBack(value, new Date());
  if (!at) throw new InvalidArgumentError(TIME_OR_DURATION_RULE);
  return at;
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number");
  return Number(value);
}

program
  .command("audit")
  .description("the audit log of every mutation, newest first")
  .option("--workspace <slug>", "only this workspace")
  .option("--since <time>", "only entries since an ISO time or a duration back (30m, 12h, 7d)", parseSince)
  .option("--limit <n>", `at most this many entries (default ${DEFAULTS.auditListLimit}, at most ${LIMITS.auditListLimit.max})`, parseLimit)
  .action(async (o: { workspace?: string; since?: Date; limit?: number }) => {
    const { entries } = await withAdmin((a) =>
      a.listAuditEntries({ workspaceSlug: o.workspace ?? "", since: o.since && timestampFromDate(o.since), limit: o.limit ?? 0 }),
    );
    // JSON lines, one entry each, so that the log can be piped to jq or a collector.
    if (json()) return entries.forEach((e) => console.log(JSON.stringify(toJson(AuditEntrySchema, e))));
    for (const e of entries) {
      console.log([date(e.at), e.workspaceSlug || e.workspaceId, actorOf(e), e.method, `${e.targetKind} ${e.targetId}`, JSON.stringify(e.changes)].join("\t"));
    }
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`vigil-admin: ${error instanceof ConnectError ? error.rawMessage : (error as Error).message}`);
  process.exit(1);
});
