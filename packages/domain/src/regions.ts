/**
 * The regions agents run in, as in the contract's region table. A region id is
 * `<host>-<location>`; the proto enum value REGION_HOSTA_AMS is `hostA-ams`.
 */
export const REGION_GROUPS = {
  hostA: ["ams", "arn", "bom", "cdg", "dfw", "ewr", "fra", "gru", "iad", "jnb", "lax", "lhr", "nrt", "ord", "sjc", "sin", "syd", "yyz"],
  hostB: ["fra", "par", "sfo", "sin", "tyo", "was"],
  hostC: ["us-west2", "us-east4", "europe-west4", "asia-southeast1"],
} as const;

type Groups = typeof REGION_GROUPS;
export type RegionId = { [G in keyof Groups]: `${G}-${Groups[G][number]}` }[keyof Groups];

export const REGION_IDS: readonly RegionId[] = Object.entries(REGION_GROUPS).flatMap(([host, locations]) =>
  locations.map((location) => `${host}-${location}` as RegionId),
);

const regionSet: ReadonlySet<string> = new Set(REGION_IDS);

export function isRegionId(value: string): value is RegionId {
  return regionSet.has(value);
}

/**
 * The region ids at a location code (`fra` -> hostA-fra, hostB-fra): what a
 * bare code, as the contract's examples write regions, may stand for.
 */
export function regionIdsAt(location: string): RegionId[] {
  return REGION_IDS.filter((id) => id.slice(id.indexOf("-") + 1) === location);
}
