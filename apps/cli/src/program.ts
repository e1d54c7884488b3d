import { createRequire } from "node:module";
import { Command } from "commander";
import { loginCommand, logoutCommand, whoamiCommand } from "./commands/auth.js";
import { pingCommand } from "./commands/ping.js";
import { auditCommand } from "./commands/audit.js";
import { applyCommand, exportCommand, planCommand, schemaCommand } from "./commands/code.js";
import { incidentsCommand } from "./commands/incidents.js";
import { maintenanceCommand } from "./commands/maintenance.js";
import { keysCommand } from "./commands/keys.js";
import { membersCommand } from "./commands/members.js";
import { ssoCommand } from "./commands/sso.js";
import { monitorsCommand } from "./commands/monitors.js";
import { regionsCommand } from "./commands/results.js";
import { notificationsCommand } from "./commands/notifications.js";
import { statusPagesCommand } from "./commands/status-pages.js";
import { FORMATS } from "./output.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const HELP_EPILOGUE = `
Settings come from, in this order: the flags, the environment (SERVICE_API_KEY,
SERVICE_API_URL), the profile saved by \`vigil login\`, the default address
http://localhost:8080. Global flags may come before or after the command.
NO_COLOR turns colours off; they are only used on a terminal.

Exit codes:
  0  success
  1  error: the API refused the request or could not be reached, or a file has problems;
     stderr says why and what to do
  2  usage error: unknown command or flag, missing or invalid argument;
     with \`plan --detailed-exitcode\`: there are changes`;

/** Every command applies the same rules: errors are thrown to main(), which maps them to exit codes. */
function applyEverywhere(command: Command): void {
  command.exitOverride().showHelpAfterError("(add --help for usage)");
  command.commands.forEach(applyEverywhere);
}

export function createProgram(): Command {
  const program = new Command("vigil")
    .description("Vigil from the command line: monitors, incidents, notifications, status pages, API keys, and all of them as code (plan, apply, export)")
    .version(version)
    .option("--api-key <key>", "API key (default: SERVICE_API_KEY, then the saved profile)")
    .option("--api-url <url>", "the API's address (default: SERVICE_API_URL, then the saved profile, then http://localhost:8080)")
    .option("-o, --output <format>", `output format: ${FORMATS.join(", ")} (default: table); for export, the file to write`)
    .addHelpText("after", HELP_EPILOGUE);
  for (const command of [
    loginCommand(),
    logoutCommand(),
    whoamiCommand(),
    monitorsCommand(),
    pingCommand(),
    regionsCommand(),
    incidentsCommand(),
    maintenanceCommand(),
    notificationsCommand(),
    statusPagesCommand(),
    keysCommand(),
    membersCommand(),
    ssoCommand(),
    auditCommand(),
    planCommand(),
    applyCommand(),
    exportCommand(),
    schemaCommand(),
  ]) {
    program.addCommand(command);
  }
  applyEverywhere(program);
  return program;
}
