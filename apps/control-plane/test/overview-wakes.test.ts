import { Changes } from "../src/changes/changes";
import { OverviewWakes } from "../src/monitors/overview-wakes";
import { eventually } from "../../../test/eventually";

/** Reads a watch in the background, keeping the wake numbers it yields. */
function reading(wakes: OverviewWakes, workspaceId: string) {
  const abort = new AbortController();
  const seen: number[] = [];
  const done = (async () => {
    for await (const wake of wakes.watch(workspaceId, abort.signal)) seen.push(wake);
  })();
  return { seen, done, stop: () => abort.abort() };
}

describe("OverviewWakes", () => {
  // Never on their own within a test: every wake below is told.
  const settings = { gapMs: 50, checkMs: 3_600_000 };

  it("wakes every watch of a workspace together, once for a burst of changes, and no watch of another", async () => {
    const changes = new Changes();
    const wakes = new OverviewWakes(changes, settings);
    const [a, b, other] = [reading(wakes, "w1"), reading(wakes, "w1"), reading(wakes, "w2")];
    await eventually(() => expect([a.seen, b.seen, other.seen]).toEqual([[0], [0], [0]]));

    for (let i = 0; i < 5; i++) changes.publish("w1");
    await eventually(() => expect([a.seen, b.seen]).toEqual([[0, 1], [0, 1]]));
    // A change told during the gap after a wake wakes them once more, at its end.
    changes.publish("w1");
    changes.publish("w1");
    await eventually(() => expect([a.seen, b.seen]).toEqual([[0, 1, 2], [0, 1, 2]]));
    expect(other.seen).toEqual([0]);

    for (const r of [a, b, other]) r.stop();
    await Promise.all([a.done, b.done, other.done]);
    // Nobody watches: nothing is kept, and a change is ignored.
    expect(wakes.watchedCount).toBe(0);
    changes.publish("w1");
    expect(wakes.watchedCount).toBe(0);
    wakes.close();
  });

  it("looks at a watched workspace every checkMs without any change told", async () => {
    const wakes = new OverviewWakes(new Changes(), { gapMs: 0, checkMs: 20 });
    const r = reading(wakes, "w1");
    await eventually(() => expect(r.seen.length).toBeGreaterThanOrEqual(3));
    wakes.close();
    await r.done;
  });

  it("ends every watch when closed", async () => {
    const changes = new Changes();
    const wakes = new OverviewWakes(changes, settings);
    const r = reading(wakes, "w1");
    await eventually(() => expect(r.seen).toEqual([0]));
    wakes.close();
    await r.done;
    expect(wakes.watchedCount).toBe(0);
    // Closed: changes no longer reach it.
    changes.publish("w1");
    expect(r.seen).toEqual([0]);
  });
});
