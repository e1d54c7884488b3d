import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/** The fixture's answer, in a process of its own: V8's settings are the whole process's. */
const youngAfterLongLivedOnes = (...args: string[]) =>
  Number(
    execFileSync(process.execPath, [resolve(__dirname, "fixtures/young-after-long-lived.cjs"), ...args], {
      env: { ...process.env, NODE_OPTIONS: "" },
      encoding: "utf8",
    }),
  );

describe("The control plane's V8 settings", () => {
  it("keep new objects young at a site whose earlier objects lived long, where V8's default makes them old", () => {
    expect(youngAfterLongLivedOnes()).toBe(0);
    expect(youngAfterLongLivedOnes("--apply")).toBe(100);
  });
});
