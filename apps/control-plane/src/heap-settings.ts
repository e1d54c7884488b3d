import { setFlagsFromString } from "node:v8";

/**
 * V8's settings for a process that serves the API for days: set once at start
 * (main.ts), before it serves.
 *
 * Allocation-site pretenuring off. V8 watches which allocation sites' objects
 * outlive young collections and, past a ratio, allocates theirs in the old
 * generation from then on. A burst of slow calls (a saturated minute, a
 * stalled client) is enough for it to learn that a call's own objects, such as
 * Node's socket write requests, outlive the call; afterwards every call's
 * objects are born old and die there, collected only by full collections.
 * Measured at 500 ListMonitors calls a second after such a burst (10,000
 * monitors, `--trace-gc-nvp`): the old generation grew 125 KB/s with it and
 * 22-26 KB/s without, so full collections, each one marking the whole heap
 * beside the calls, come about five times less often. Young collections stay
 * as they were: what really lives long still moves up at its second one.
 */
export function applyServerHeapSettings(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}
