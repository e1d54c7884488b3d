import type { Colors } from "../output.js";
import type { FieldChange } from "./diff.js";
import { allSteps, countChanges, hasChanges, type Counts, type Plan, type Step } from "./plan.js";

const SIGNS = { create: "+", update: "~", replace: "-/+", delete: "-" } as const;

const show = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));
const showField = (change: FieldChange) => (change.sensitive ? `${change.from} → ${change.to}` : `${show(change.from)} → ${show(change.to)}`);

/** A few words about what an entry is: its type and display name. */
function label(step: Step<unknown, unknown>): string {
  const value = (step.desired ?? step.remote) as Record<string, unknown>;
  const config = value.config as { name?: string } | undefined;
  const kind = value.kind ?? value.type ?? "";
  const name = config?.name ?? value.name ?? value.title ?? "";
  return [kind, name ? JSON.stringify(name) : ""].filter(Boolean).join(" ");
}

function stepLines(colors: Colors, step: Step<unknown, unknown>): string[] {
  if (step.action === "none") return [];
  const paint = { create: colors.green, update: colors.yellow, replace: colors.magenta, delete: colors.red }[step.action];
  const id = (step.remote as { id?: string } | undefined)?.id;
  const what = step.action === "replace" ? `replace: ${step.reason}` : step.action === "delete" ? `(id ${id})` : `(${label(step)})`;
  const head = `  ${paint(SIGNS[step.action])} ${step.address} ${step.action === "update" ? "" : what}`.trimEnd();
  return [head, ...step.fields.map((change) => `      ${change.field}: ${showField(change)}`)];
}

export const planSummary = (c: Counts) => `Plan: ${c.create} to create, ${c.update} to change, ${c.replace} to replace, ${c.delete} to delete.`;
export const appliedSummary = (c: Counts) => `Applied: ${c.create} created, ${c.update} changed, ${c.replace} replaced, ${c.delete} deleted.`;

/** The plan for people: one line per object that changes, its changed fields under it. */
export function renderPlan(colors: Colors, plan: Plan, source: string): string {
  const counts = countChanges(plan);
  if (!hasChanges(counts)) return `No changes: the workspace matches ${source} (project ${plan.project}).`;
  const lines = allSteps(plan).flatMap((step) => stepLines(colors, step));
  return [`${source} (project ${plan.project}) would change the workspace:`, "", ...lines, "", planSummary(counts)].join("\n");
}

/** The plan for scripts. */
export function planJson(plan: Plan) {
  return {
    project: plan.project,
    changes: allSteps(plan)
      .filter((step) => step.action !== "none")
      .map((step) => ({
        address: step.address,
        action: step.action,
        id: (step.remote as { id?: string } | undefined)?.id ?? "",
        ...(step.reason ? { reason: step.reason } : {}),
        fields: step.fields,
      })),
    summary: countChanges(plan),
  };
}
