import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../../control-plane/test/support/api.js";
import { vigil, type Run } from "./cli.js";

/**
 * A test API on PGlite with one workspace, and a HOME of the CLI's own, started before the
 * file's tests and stopped after them; `ok` runs the built CLI with the workspace's write key
 * (or `key`) and expects it to succeed.
 */
export function cliWorkspace(name: string) {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let dir: string;
  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    dir = await mkdtemp(join(tmpdir(), `vigil-${name}-`));
  });
  afterAll(async () => {
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const env = (key: string | undefined = ws.write.key): NodeJS.ProcessEnv => ({ HOME: dir, SERVICE_API_URL: api.baseUrl, ...(key ? { SERVICE_API_KEY: key } : {}) });
  async function ok(args: string[], key?: string): Promise<Run> {
    const run = await vigil(args, env(key));
    // Commands that report progress do it on stderr; a failure there starts with "vigil:".
    expect({ args, code: run.code, stderr: run.stderr }).toMatchObject({ code: 0, stderr: expect.not.stringContaining("vigil:") });
    return run;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const okJson = async (args: string[], key?: string): Promise<any> => JSON.parse((await ok([...args, "-o", "json"], key)).stdout);
  return {
    get api() {
      return api;
    },
    get ws() {
      return ws;
    },
    get dir() {
      return dir;
    },
    env,
    ok,
    okJson,
  };
}
