import { warmUpChecks } from "../src/warm-up";

describe("warmUpChecks", () => {
  it("runs HTTP and TCP checks against loopback servers of its own, which its policy opens whatever the agent's is", async () => {
    expect(await warmUpChecks(3)).toBe(6);
  });
});
