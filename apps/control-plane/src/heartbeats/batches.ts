interface Waiting<T, R> {
  key: string;
  item: T;
  done(result: R): void;
  fail(error: unknown): void;
}

/**
 * Stores what it is handed in batches, one batch at a time: an item handed over while nothing is being stored goes
 * at once, alone; what arrives while a batch is stored goes together in the next. So a trickle costs what it did
 * item by item, and a burst costs a statement per batch instead of one per item. A batch holds at most `max` items
 * and one per key (items of one key are stored in the order handed over, a batch each); the rest wait their turn.
 */
export class OneBatchAtATime<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private storing = false;

  constructor(
    /** Stores a batch; its answer has one result per item, in the items' order. */
    private readonly store: (items: T[]) => Promise<R[]>,
    private readonly keyOf: (item: T) => string,
    private readonly max: number,
  ) {}

  /** The item's result once the batch it went in is stored, or that batch's error. */
  add(item: T): Promise<R> {
    return new Promise<R>((done, fail) => {
      this.waiting.push({ key: this.keyOf(item), item, done, fail });
      void this.next();
    });
  }

  private async next(): Promise<void> {
    if (this.storing || this.waiting.length === 0) return;
    this.storing = true;
    const batch = this.take();
    try {
      const results = await this.store(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.done(results[i]!));
    } catch (error) {
      for (const waiting of batch) waiting.fail(error);
    } finally {
      this.storing = false;
      void this.next();
    }
  }

  /** The next batch: the oldest item of each key, oldest first, up to `max`. */
  private take(): Waiting<T, R>[] {
    const keys = new Set<string>();
    const batch: Waiting<T, R>[] = [];
    const later: Waiting<T, R>[] = [];
    let i = 0;
    for (; i < this.waiting.length && batch.length < this.max; i++) {
      const waiting = this.waiting[i]!;
      if (keys.has(waiting.key)) later.push(waiting);
      else {
        keys.add(waiting.key);
        batch.push(waiting);
      }
    }
    this.waiting = i === this.waiting.length ? later : later.concat(this.waiting.slice(i));
    return batch;
  }
}
