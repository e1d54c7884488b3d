/** Every numeric limit of the contract, in one place. */
export const LIMITS = {
  nameMaxChars: 256,
  targetMaxChars: 2048,
  descriptionMaxChars: 1024,
  timeoutMs: { min: 0, max: 120_000 },
  retry: { min: 0, max: 10 },
  degradedAtMs: { min: 0, max: 120_000 },
  headersPerMonitor: 20,
  assertionsPerList: 10,
  statusCode: { min: 100, max: 599 },
  listLimit: { min: 1, max: 100 },
  /** Largest request body the API reads. */
  requestBodyBytes: 1024 * 1024,
} as const;

export const DEFAULTS = {
  method: "GET",
  body: "",
  timeoutMs: 45_000,
  retry: 3,
  followRedirects: true,
  active: false,
  public: false,
  description: "",
  listLimit: 50,
  listOffset: 0,
} as const;

/**
 * degradedAt when a monitor does not set it: half of the timeout, so that a
 * check is degraded once it has used half of the time it is allowed. A timeout
 * of 0 means "no timeout of its own" and checks are then bounded by the
 * largest timeout (120000 ms), so the default is 60000 ms.
 * Computed once, when the monitor is created (or when an update names
 * degradedAt without a value), and stored, so clients never see it drift.
 */
export function defaultDegradedAt(timeoutMs: number): number {
  const effective = timeoutMs === 0 ? LIMITS.timeoutMs.max : timeoutMs;
  return Math.floor(effective / 2);
}
