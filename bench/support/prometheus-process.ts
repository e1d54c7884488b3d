// A server of the Prometheus project (prometheus, blackbox_exporter, from their Debian packages) in a process of its
// own, on a free loopback port: bench/fidelity/blackbox.ts and bench/peer/prometheus.ts.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { freePort } from "./ports";
import { sleep } from "./run";

/** How long it may take to answer its readiness endpoint. */
const READY_WITHIN_MS = 30_000;

/** Starts `binary` with `args`, its listen address and log level; resolves once `readyPath` answers 2xx, with its base URL. */
export async function startPrometheusProcess(binary: string, args: string[], readyPath: string): Promise<{ child: ChildProcess; url: string }> {
  const address = `127.0.0.1:${await freePort()}`;
  const child = spawn(binary, [...args, `--web.listen-address=${address}`, "--log.level=warn"], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`${binary} exited with ${code}`))));
  const url = `http://${address}`;
  for (let waited = 0; ; waited += 100) {
    const ready = await Promise.race([fetch(`${url}${readyPath}`).then((answer) => answer.ok, () => false), exited]);
    if (ready) return { child, url };
    if (waited >= READY_WITHIN_MS) {
      child.kill("SIGKILL");
      throw new Error(`${binary} did not answer ${readyPath} in ${READY_WITHIN_MS / 1000} s`);
    }
    await sleep(100);
  }
}

/** Its version, as `--version` says it. */
export const versionOf = (binary: string): string =>
  /version (\S+)/.exec(execFileSync(binary, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }))?.[1] ?? "unknown";
