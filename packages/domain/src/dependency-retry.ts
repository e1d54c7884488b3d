/**
 * How a service waits between tries of a dependency (Redis, the database) that failed: 200 ms, doubled after
 * each failure, at most 5 s. In p-retry's terms, to be spread into its options: the agent's result publisher,
 * the control plane's results consumer and its audit log writer all follow it.
 */
export const DEPENDENCY_RETRY = { minTimeout: 200, factor: 2, maxTimeout: 5_000 } as const;

/**
 * Tries of an audit entry, the first included. The call whose change it records waits for them, so they stop
 * (at 200 and 400 ms, DEPENDENCY_RETRY) where the other writers go on until the dependency is back.
 */
export const AUDIT_WRITE_ATTEMPTS = 3;
