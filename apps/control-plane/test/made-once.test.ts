import { MadeOnce } from "../src/monitors/made-once";

describe("What is made once per shared object, held by the object's id", () => {
  const counting = (limit: number) => {
    const made: string[] = [];
    const cache = new MadeOnce<{ id: string; name: string }, string>((of) => (made.push(of.id), `${of.id}:${of.name}`), limit);
    return { cache, made };
  };

  it("hands out what it made while the object is the same, and makes it again for a newer object of the id", () => {
    const { cache, made } = counting(10);
    const a = { id: "a", name: "first" };
    expect(cache.of(a)).toBe("a:first");
    expect(cache.of(a)).toBe("a:first");
    expect(made).toEqual(["a"]);
    // An equal object is another object: a changed monitor's record is always a new one.
    const renamed = { id: "a", name: "renamed" };
    expect(cache.of(renamed)).toBe("a:renamed");
    expect(cache.of({ ...renamed })).toBe("a:renamed");
    expect(made).toEqual(["a", "a", "a"]);
  });

  it("holds at most its limit, letting the least recently used go first", () => {
    const { cache, made } = counting(2);
    const [a, b, c] = ["a", "b", "c"].map((id) => ({ id, name: id }));
    cache.of(a!);
    cache.of(b!);
    // Made again for a newer object, `a` becomes the newest: `b` is the oldest when `c` comes.
    const a2 = { id: "a", name: "a2" };
    cache.of(a2);
    cache.of(c!);
    made.length = 0;
    cache.of(a2);
    cache.of(c!);
    expect(made).toEqual([]);
    cache.of(b!);
    expect(made).toEqual(["b"]);
  });

  it("counts handing out as a use: what was made first but asked for since stays", () => {
    const { cache, made } = counting(2);
    const [a, b, c] = ["a", "b", "c"].map((id) => ({ id, name: id }));
    cache.of(a!);
    cache.of(b!);
    expect(cache.madeFor("a")).toBe("a:a");
    cache.of(c!);
    made.length = 0;
    cache.of(a!);
    expect(made).toEqual([]);
    cache.of(b!);
    expect(made).toEqual(["b"]);
  });
});
