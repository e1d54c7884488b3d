import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { VigilError } from "@vigil/client";
import { ProviderError } from "../diagnostics.js";
import { LIMITS } from "@vigil/domain";
import { computed, withDefault, type AttributeSpec } from "../schema/index.js";

/** What the resources share. */

/** created_at and updated_at: RFC 3339 text; updated_at changes with every update, so an update's plan cannot know it. */
export const timestampAttributes = (what: string): Record<string, AttributeSpec> => ({
  created_at: computed("string", `When the ${what} was created (RFC 3339).`),
  updated_at: computed("string", `When the ${what} was last changed (RFC 3339).`, { volatile: true }),
});

/**
 * The API's dependsOn, on every monitor resource. Not `depends_on`: Terraform reserves that name for its own
 * meta-argument (ordering only) in every resource block, so no provider may define an attribute of that name.
 * Naming other resources' ids here orders them too.
 */
export const dependsOnMonitorsAttribute = (): AttributeSpec =>
  withDefault(
    ["list", "string"],
    `Ids of monitors of the workspace this one depends on, at most ${LIMITS.dependsOnPerMonitor}, no cycles: while one of them has an open incident, this monitor's failures open none and alert nothing (docs/alerting.md "Dependencies").`,
    [],
    { field: "dependsOn" },
  );

export const timestampText = (timestamp: Timestamp | undefined): string | null => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** The API's answer, or null when what was asked for is gone (Terraform then plans to create it again). */
export async function unlessMissing<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof VigilError && error.code === "not_found") return null;
    throw error;
  }
}

/** Deletes, counting what is already gone as deleted. */
export async function deleteIfPresent(call: Promise<unknown>): Promise<void> {
  await unlessMissing(call);
}

export function answered<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new ProviderError("Unexpected answer", `the API answered without the ${what}`);
  return value;
}
