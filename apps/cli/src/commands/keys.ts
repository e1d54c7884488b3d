import { Command } from "commander";
import { action } from "../context.js";

export function keysCommand(): Command {
  const keys = new Command("keys").description("API keys");
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
