import { create } from "@bufbuild/protobuf";
import { GetSsoSettingsResponseSchema, SetSsoSettingsResponseSchema, SsoSettingsSchema } from "@vigil/proto/account";
import { Command, InvalidArgumentError } from "commander";
import { action } from "../context.js";
import { CliError, EXIT } from "../failures.js";
import { messageDetails } from "../output.js";
import { prompts } from "./auth.js";

interface SetOptions {
  issuer?: string;
  clientId?: string;
  clientSecret?: boolean;
  allowedDomains?: string;
  defaultRole?: string;
  roleClaim?: string;
  map?: Record<string, string>;
  clearMap?: boolean;
  enabled?: boolean;
  enforced?: boolean;
}

/** `--map groups-value=role`, repeatable, into one mapping. */
function addMapping(pair: string, mapping: Record<string, string> = {}): Record<string, string> {
  const at = pair.lastIndexOf("=");
  if (at <= 0) throw new InvalidArgumentError("must be <claim value>=<role>, e.g. vigil-admins=admin");
  return { ...mapping, [pair.slice(0, at)]: pair.slice(at + 1) };
}

/** `vigil sso get|set`: the workspace's single sign-on (docs/accounts.md), for its owners signed in with `vigil login --email`. */
export function ssoCommand(): Command {
  const sso = new Command("sso").description("the workspace's single sign-on with OpenID Connect (owners, signed in with `vigil login --email`)");
  sso
    .command("get")
    .description("the settings (never the client secret), the redirect URI to register with the provider and the sign-in URL")
    .action(
      action(async (ctx) => {
        const got = await ctx.client.sso.getSsoSettings({});
        const first: [string, string][] = [["redirectUri", got.redirectUri], ["signInUrl", got.signInUrl]];
        ctx.out.write(ctx.out.renderMessage(GetSsoSettingsResponseSchema, got, () => messageDetails(ctx.out.colors, SsoSettingsSchema, got.settings, first)));
      }),
    );
  sso
    .command("set")
    .description("change the settings: what is not given keeps its current value")
    .option("--issuer <url>", "the provider's issuer URL (https)")
    .option("--client-id <id>", "the client the provider registered for Vigil")
    .option("--client-secret", "set the client secret, asked for (or the first line of stdin); without it the stored one is kept")
    .option("--allowed-domains <domains>", "comma-separated email domains that may sign in; \"\" for any")
    .option("--default-role <role>", "the role of people who join without a mapped role: admin, editor or viewer")
    .option("--role-claim <claim>", "the claim role mappings read, e.g. groups")
    .option("--map <value=role>", "map a claim value to a role (repeatable; replaces the mapping)", addMapping)
    .option("--clear-map", "remove every role mapping")
    .option("--enabled", "let people sign in with SSO")
    .option("--no-enabled", "turn SSO off")
    .option("--enforced", "make SSO the only way into the workspace")
    .option("--no-enforced", "let password sessions act again")
    .action(
      action(async (ctx, options: SetOptions) => {
        const current = (await ctx.client.sso.getSsoSettings({})).settings ?? create(SsoSettingsSchema, { defaultRole: "viewer" });
        let clientSecret = "";
        if (options.clientSecret) {
          const asked = prompts();
          try {
            clientSecret = await asked.ask("Client secret", { trim: true });
          } finally {
            asked.close();
          }
          if (!clientSecret) throw new CliError("no client secret given: type it when asked, or give it as the first line of stdin.", EXIT.usage);
        }
        const settings = {
          issuerUrl: options.issuer ?? current.issuerUrl,
          clientId: options.clientId ?? current.clientId,
          clientSecret,
          allowedDomains: options.allowedDomains === undefined ? current.allowedDomains : options.allowedDomains.split(",").map((d) => d.trim()).filter(Boolean),
          defaultRole: options.defaultRole ?? current.defaultRole,
          roleClaim: options.roleClaim ?? current.roleClaim,
          roleMapping: options.clearMap ? {} : (options.map ?? current.roleMapping),
          enabled: options.enabled ?? current.enabled,
          enforced: options.enforced ?? current.enforced,
        };
        const set = await ctx.client.sso.setSsoSettings({ settings });
        ctx.out.write(ctx.out.renderMessage(SetSsoSettingsResponseSchema, set, () => messageDetails(ctx.out.colors, SsoSettingsSchema, set.settings)));
      }),
    );
  return sso;
}
