// Lean stand-ins for the providers' APIs in bench/alerting.ts, run in a child process of their own
// (as a provider lives on another machine) so that receiving messages takes no time from the control
// plane's event loop. Each notes when every message arrived and which path it was posted to, and
// answers 200 to a message that names its channel's monitor as down, 400 (a final failure, never
// retried) to anything else, so a wrong message shows up as a missing one.
import { fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

export const PROVIDERS = ["webhook", "slack", "ntfy"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const nameOf = (index: number) => `http check ${index}`;
export const urlOf = (index: number) => `https://service-${index}.example.com/health`;

export interface Arrival {
  path: string;
  /** Wall-clock milliseconds (performance.timeOrigin + performance.now(), comparable across processes) when the whole body had arrived. */
  at: number;
}

/** What the servers received: the accepted messages and the refused requests. */
export interface Received {
  arrivals: Arrival[];
  rejected: string[];
}

export const preciseNow = () => performance.timeOrigin + performance.now();

/** Channel `provider` of the monitor numbered `index` posts to /<provider>/<index>: the message must name that monitor as down. */
function accepts(path: string, body: string): boolean {
  const match = /^\/(\w+)\/(\d+)\/?$/.exec(path);
  if (!match || !(PROVIDERS as readonly string[]).includes(match[1]!)) return false;
  const index = Number(match[2]);
  return body.includes(`${nameOf(index)} (${urlOf(index)}) is down`);
}

/** The child: one server per provider; its URLs go to the parent, then what they received whenever asked. */
async function serve(): Promise<void> {
  const received: Received = { arrivals: [], rejected: [] };
  const servers = await Promise.all(
    PROVIDERS.map(async () => {
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const at = preciseNow();
          const path = req.url ?? "";
          if (req.method === "POST" && accepts(path, Buffer.concat(chunks).toString("utf8"))) {
            received.arrivals.push({ path, at });
            res.writeHead(200).end();
          } else {
            received.rejected.push(`${req.method} ${path}`);
            res.writeHead(400).end();
          }
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return server;
    }),
  );
  const urls = Object.fromEntries(PROVIDERS.map((provider, k) => [provider, `http://127.0.0.1:${(servers[k]!.address() as AddressInfo).port}`]));
  process.on("message", (message) => {
    if (message === "received") process.send!(received);
  });
  process.on("disconnect", () => process.exit(0));
  process.send!(urls);
}

/** Starts the servers in a child process. */
export async function startCountingServers() {
  const child = fork(__filename, ["serve"], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      child.once("message", (message) => resolve(message as T));
      child.once("exit", (code) => reject(new Error(`the provider servers exited with ${code}`)));
    });
  const urls = await next<Record<ProviderName, string>>();
  return {
    urls,
    async received(): Promise<Received> {
      const answer = next<Received>();
      child.send("received");
      return answer;
    },
    close: () => new Promise<void>((resolve) => (child.exitCode === null ? child.once("exit", () => resolve()).disconnect() : resolve())),
  };
}

export type CountingServers = Awaited<ReturnType<typeof startCountingServers>>;

if (process.argv[2] === "serve") void serve();
