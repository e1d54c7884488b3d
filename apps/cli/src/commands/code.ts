import { writeFile } from "node:fs/promises";
import { Command, Option } from "commander";
import { action, type Context } from "../context.js";
import { CliError, EXIT } from "../failures.js";
import { parseInteger } from "../fields.js";
import { applyPlan } from "../code/apply.js";
import { exportWorkspace } from "../code/export.js";
import { fileJsonSchema } from "../code/file-schema.js";
import { loadFile } from "../code/load.js";
import { countChanges, hasChanges, planChanges, type Plan } from "../code/plan.js";
import { progressReporter } from "../code/progress.js";
import { readWorkspace } from "../code/remote.js";
import { appliedSummary, planJson, renderPlan } from "../code/render.js";

const fileOption = () => new Option("-f, --file <path>", "the file describing the workspace, or - for stdin").default("vigil.yaml");

async function planOf(ctx: Context, file: string): Promise<Plan> {
  const desired = await loadFile(file);
  return planChanges(desired, await readWorkspace(ctx.client));
}

const printPlan = (ctx: Context, plan: Plan, file: string) => ctx.out.write(ctx.out.render(planJson(plan), () => renderPlan(ctx.out.colors, plan, file)));

export function planCommand(): Command {
  return new Command("plan")
    .description("show what `apply` would create, change and delete to make the workspace match the file")
    .addOption(fileOption())
    .option("--detailed-exitcode", "exit 2 when there are changes, 0 when there are none (1 on errors)")
    .action(
      action(async (ctx, options: { file: string; detailedExitcode?: boolean }) => {
        const plan = await planOf(ctx, options.file);
        printPlan(ctx, plan, options.file);
        if (options.detailedExitcode && hasChanges(countChanges(plan))) process.exitCode = EXIT.usage;
      }),
    );
}

export function applyCommand(): Command {
  return new Command("apply")
    .description("make the workspace match the file: create, change and delete what the plan shows")
    .addOption(fileOption())
    .option("--parallelism <n>", "API calls in flight at once", parseInteger, 8)
    .action(
      action(async (ctx, options: { file: string; parallelism: number }) => {
        if (options.parallelism < 1) throw new CliError("--parallelism must be at least 1", EXIT.usage);
        const plan = await planOf(ctx, options.file);
        const counts = countChanges(plan);
        if (ctx.out.format === "table") printPlan(ctx, plan, options.file);
        if (hasChanges(counts)) {
          const progress = progressReporter(process.stderr);
          try {
            await applyPlan(ctx.client, plan, { concurrency: options.parallelism, onProgress: progress.update, apiUrl: ctx.settings.apiUrl });
          } finally {
            progress.end();
          }
        }
        if (ctx.out.format !== "table") ctx.out.write(ctx.out.render({ ...planJson(plan), applied: true }, () => ""));
        else if (hasChanges(counts)) ctx.out.write(appliedSummary(counts));
      }),
    );
}

export function exportCommand(): Command {
  return new Command("export")
    .description("write the whole workspace as a vigil.yaml, to stdout or a file")
    .option("--project <name>", "the project whose keys the file uses", "default")
    .addHelpText("after", "\nWith -o FILE (--output FILE) it writes FILE instead of stdout.")
    .action(
      action(async (ctx, options: { project: string }) => {
        const text = exportWorkspace(await readWorkspace(ctx.client), options.project);
        const file = ctx.flags.output;
        if (file) await writeFile(file, text);
        else process.stdout.write(text);
      }),
    );
}

export function schemaCommand(): Command {
  return new Command("schema").description("print the JSON Schema of vigil.yaml files").action(() => {
    process.stdout.write(`${JSON.stringify(fileJsonSchema(), null, 2)}\n`);
  });
}
