import { createAsyncIterable } from "@connectrpc/connect/protocol";

/**
 * The patched Connect (patches/@connectrpc__connect@2.2.0.patch) builds the
 * iterable every unary answer is written from by hand instead of with
 * TypeScript's async-generator helpers, whose objects kept each answer alive
 * through young-generation collections (docs/benchmarks.md, API throughput).
 * It must still behave as `async function* () { yield* items }` does.
 */
describe("createAsyncIterable (patched)", () => {
  const drain = async <T>(iterable: AsyncIterable<T>) => {
    const seen: T[] = [];
    for await (const item of iterable) seen.push(item);
    return seen;
  };

  it("yields the items in order, awaiting those that are promises", async () => {
    expect(await drain(createAsyncIterable([1, Promise.resolve(2), 3]))).toEqual([1, 2, 3]);
    expect(await drain(createAsyncIterable([]))).toEqual([]);
  });

  it("is its own iterator, so a second loop finds it done", async () => {
    const iterable = createAsyncIterable(["a", "b"]);
    const iterator = iterable[Symbol.asyncIterator]() as AsyncIterableIterator<string>;
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator);
    expect(await iterator.next()).toEqual({ done: false, value: "a" });
    expect(await drain(iterable)).toEqual(["b"]);
    expect(await drain(iterable)).toEqual([]);
  });

  it("ends for good when returned from or thrown into", async () => {
    const returned = createAsyncIterable([1, 2])[Symbol.asyncIterator]();
    expect(await returned.next()).toEqual({ done: false, value: 1 });
    expect(await returned.return!("early")).toEqual({ done: true, value: "early" });
    expect(await returned.next()).toEqual({ done: true, value: undefined });

    const thrown = createAsyncIterable([1, 2])[Symbol.asyncIterator]();
    await expect(thrown.throw!(new Error("stop"))).rejects.toThrow("stop");
    expect(await thrown.next()).toEqual({ done: true, value: undefined });
  });

  it("rejects with an item's rejection, and is done after it", async () => {
    const iterator = createAsyncIterable([Promise.reject(new Error("boom")), 2])[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow("boom");
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});
