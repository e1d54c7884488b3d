/** How often a monitor is checked, with its period in milliseconds. */
export const PERIODICITY_MS = {
  "30s": 30_000,
  "1m": 60_000,
  "5m": 300_000,
  "10m": 600_000,
  "30m": 1_800_000,
  "1h": 3_600_000,
} as const;

export type Periodicity = keyof typeof PERIODICITY_MS;
export const PERIODICITIES = Object.keys(PERIODICITY_MS) as Periodicity[];
