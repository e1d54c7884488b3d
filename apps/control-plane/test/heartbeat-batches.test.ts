import { OneBatchAtATime } from "../src/heartbeats/batches";

/** A store whose batches the test ends one by one: what each batch held, and a way to answer it. */
function heldStore() {
  const batches: { items: string[]; answer(): void; refuse(error: Error): void }[] = [];
  const store = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, answer: () => resolve(items.map((item) => `stored ${item}`)), refuse: reject });
    });
  return { batches, store };
}
const key = (item: string) => item.split(".")[0]!;
const turn = () => new Promise((done) => setImmediate(done));

describe("OneBatchAtATime", () => {
  it("stores an item handed over while nothing is stored at once and alone, and what comes meanwhile in the next batch", async () => {
    const { batches, store } = heldStore();
    const batcher = new OneBatchAtATime(store, key, 10);
    const first = batcher.add("a.1");
    const rest = ["b.1", "c.1", "d.1"].map((item) => batcher.add(item));
    await turn();
    expect(batches.map((b) => b.items)).toEqual([["a.1"]]);

    batches[0]!.answer();
    expect(await first).toBe("stored a.1");
    await turn();
    expect(batches.map((b) => b.items)).toEqual([["a.1"], ["b.1", "c.1", "d.1"]]);
    batches[1]!.answer();
    expect(await Promise.all(rest)).toEqual(["stored b.1", "stored c.1", "stored d.1"]);
  });

  it("puts one item of a key in a batch, in the order handed over, and at most `max` items", async () => {
    const { batches, store } = heldStore();
    const batcher = new OneBatchAtATime(store, key, 3);
    const all = ["x.0", "a.1", "a.2", "b.1", "a.3", "c.1", "d.1", "b.2"].map((item) => batcher.add(item));
    // Answers each batch as it comes (answering one twice does nothing).
    for (let i = 0; i < 8; i++) {
      await turn();
      batches.at(-1)?.answer();
    }
    expect(batches.map((b) => b.items)).toEqual([["x.0"], ["a.1", "b.1", "c.1"], ["a.2", "d.1", "b.2"], ["a.3"]]);
    expect(await Promise.all(all)).toHaveLength(8);
  });

  it("fails the items of a batch whose store failed, and goes on with the next", async () => {
    const { batches, store } = heldStore();
    const batcher = new OneBatchAtATime(store, key, 10);
    const first = batcher.add("a.1");
    const second = batcher.add("b.1");
    await turn();
    batches[0]!.refuse(new Error("database gone"));
    await expect(first).rejects.toThrow("database gone");
    await turn();
    batches[1]!.answer();
    expect(await second).toBe("stored b.1");
  });
});
