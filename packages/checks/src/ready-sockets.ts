import { setImmediate } from "node:timers/promises";

/**
 * Resolves once the event loop has read every socket that was ready with the one being handled.
 *
 * A check's time is taken on its socket's event. libuv runs the callbacks of one poll one after
 * another, each with the microtasks it queued, and setImmediate runs after all of them: the rest of a
 * check's work (its assertions, its result, handing it to the main thread) waits for this, so that
 * answers arriving together are each timed on their own read, not after the work of the checks read
 * before them (bench:fidelity's bursts).
 */
export const afterReadySockets = (): Promise<void> => setImmediate();
