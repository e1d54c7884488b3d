import type { QuorumRule, RegionId } from "@vigil/domain";

/** The deployment's settings that decide which regions count and when a monitor fails. */
export interface StatusRules {
  /** Where monitors without regions of their own are checked (DEFAULT_REGIONS). */
  defaultRegions: readonly RegionId[];
  /** ALERT_QUORUM. */
  quorum: QuorumRule;
}

/**
 * The regions a monitor is checked in, and so the only ones its status comes
 * from: its own, or the deployment's defaults when it names none. The
 * scheduler and the status both ask here, so they never disagree.
 */
export function checkedRegions(regions: readonly RegionId[], rules: Pick<StatusRules, "defaultRegions">): readonly RegionId[] {
  return regions.length > 0 ? regions : rules.defaultRegions;
}
