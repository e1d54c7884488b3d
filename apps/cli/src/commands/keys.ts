import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ApiKeySchema, CreateApiKeyResponseSchema, ListApiKeysResponseSchema, type ApiKey } from "@vigil/proto/account";
import { Command, Option } from "commander";
import { action } from "../context.js";
import { CliError, EXIT } from "../failures.js";
import { isoTime, jsonFlagOutput, messageDetails, table, type Output } from "../output.js";

function expiryOf(text: string | undefined) {
  if (text === undefined) return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new CliError(`--expires must be an ISO 8601 time (2027-01-31T00:00:00Z), not ${text}`, EXIT.usage);
  return timestampFromDate(at);
}

function keysTable(out: Output, keys: ApiKey[]): string {
  return table(
    out.colors,
    ["ID", "NAME", "PREFIX", "SCOPE", "CREATED BY", "CREATED", "LAST USED", "EXPIRES"],
    keys.map((k) => [
      k.id,
      k.name,
      `${k.prefix}…`,
      (k.scopes.length ? k.scopes.join(",") : "write") + (k.revokedAt ? ` (revoked ${isoTime(k.revokedAt)})` : ""),
      k.createdBy?.email ?? "",
      isoTime(k.createdAt),
      isoTime(k.lastUsedAt),
      isoTime(k.expiresAt),
    ]),
  );
}

export function keysCommand(): Command {
  const keys = new Command("keys").description("API keys (create and list: signed in as an admin or owner, `vigil login --email`)");
  keys
    .command("create")
    .description("create an API key of the workspace and print it, this once")
    .requiredOption("--name <name>", "what the key is for")
    .addOption(new Option("--scope <scope>", "what it may do").choices(["read", "write"]).makeOptionMandatory())
    .option("--expires <time>", "when it stops working (ISO 8601); default: never")
    .option("--json", "the whole answer as JSON, the key included")
    .action(
      action(async (ctx, options: { name: string; scope: string; expires?: string; json?: boolean }) => {
        const expiresAt = expiryOf(options.expires);
        const created = await ctx.client.apiKeys.createApiKey({ name: options.name, scopes: [options.scope], expiresAt });
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(
          out.renderMessage(CreateApiKeyResponseSchema, created, () =>
            [messageDetails(out.colors, ApiKeySchema, created.apiKey), "", created.key, "", "store the key now: it is not shown again"].join("\n"),
          ),
        );
      }),
    );
  keys
    .command("list")
    .description("the workspace's API keys, revoked and expired ones included")
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, options: { json?: boolean }) => {
        const listed = await ctx.client.apiKeys.listApiKeys({});
        const out = jsonFlagOutput(ctx.out, options.json);
        out.write(out.renderMessage(ListApiKeysResponseSchema, listed, () => keysTable(out, listed.apiKeys)));
      }),
    );
  keys
    .command("revoke")
    .description("revoke an API key of the workspace (a read key may revoke only itself)")
    .argument("<id>", "key id")
    .action(
      action(async (ctx, id: string) => {
        const revoked = await ctx.client.revokeApiKey(id);
        const json = { ...revoked, revokedAt: revoked.revokedAt.toISOString() };
        ctx.out.write(ctx.out.render(json, () => `revoked API key ${id} at ${json.revokedAt}`));
      }),
    );
  return keys;
}
