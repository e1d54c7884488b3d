import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const DIST = path.join(__dirname, "../dist");

/**
 * The agent and its check threads import @vigil/domain's rules by module
 * (`@vigil/domain/regions`), never its index: the index also loads what only
 * the API needs (its messages, Markdown, the password dictionaries), about
 * 5 MB of heap in each of the agent's threads (docs/scaling.md). Loads the
 * built agent as `node apps/agent/dist/main.js` would, without starting it,
 * and lists the domain modules that came with it.
 */
function domainModulesLoaded(): string[] {
  // main.js starts the agent and check-thread.js expects a pool around it: every other module, and the check
  // engine the thread runs, is what they load.
  const modules = readdirSync(DIST).filter((name) => name.endsWith(".js") && name !== "main.js" && name !== "check-thread.js");
  const script = `
    for (const name of ${JSON.stringify(modules)}) require(${JSON.stringify(DIST)} + "/" + name);
    require("@vigil/checks");
    const domain = Object.keys(require.cache).filter((file) => file.includes("/packages/domain/dist/"));
    process.stdout.write(JSON.stringify(domain.map((file) => file.split("/packages/domain/dist/")[1])));`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: path.join(__dirname, ".."), encoding: "utf8" })) as string[];
}

test("the agent loads the domain rules it uses, not @vigil/domain's index", () => {
  const loaded = domainModulesLoaded();
  expect(loaded).toContain("regions.js");
  expect(loaded).toContain("address-policy.js");
  expect(loaded).not.toContain("index.js");
  expect(loaded).not.toContain("passwords.js");
  expect(loaded).not.toContain("markdown.js");
});
