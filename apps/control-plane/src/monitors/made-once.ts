import { LRUCache } from "lru-cache";

/**
 * What is made from a shared object once, and handed out again while that
 * object is the latest of its id: a monitor's API message from its kept
 * record, the message's JSON from the message.
 *
 * Kept strongly by id, not in a WeakMap by the object. A WeakMap's entries are
 * ephemerons, which V8 (11.3, Node 20) finishes marking in the atomic pause of
 * a full collection, round after round when one map's values are another's
 * keys (record → message → JSON). With 10,000 monitors kept that pause was
 * 35 ms of the API server's 53 ms (`--trace-gc-nvp`: mark.ephemeron.marking),
 * every request in flight waiting for it; held by id, the same heap marks
 * them with the rest, concurrently.
 */
export class MadeOnce<T extends { readonly id: string }, V> {
  private readonly made: LRUCache<string, { of: T; value: V }>;

  /** `limit` bounds what is held: past it the least recently used goes first, as records do (records-by-version.ts). */
  constructor(
    private readonly make: (of: T) => V,
    limit: number,
  ) {
    this.made = new LRUCache({ max: limit });
  }

  of(source: T): V {
    const kept = this.made.get(source.id);
    if (kept?.of === source) return kept.value;
    const value = this.make(source);
    // Made again for a newer object of the id (the monitor changed): it replaces the old one.
    this.made.set(source.id, { of: source, value });
    return value;
  }

  /** What was made for the latest object of `id`, while it is held. */
  madeFor(id: string): V | undefined {
    return this.made.get(id)?.value;
  }
}
