// A counting HTTP proxy between an API client (the CLI, or the baseline's client) and the API server,
// in a child process of its own so that forwarding takes no time from either side's event loop. It
// streams every request and answer through unchanged and notes each call's path and when it started
// and ended, so the bench can count calls honestly and see where a run's time went.
import { fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

/** One call as the proxy saw it; times are wall-clock milliseconds comparable across processes. */
export interface Call {
  path: string;
  status: number;
  start: number;
  end: number;
}

export const preciseNow = () => performance.timeOrigin + performance.now();

/** The child: listens on 127.0.0.1, forwards to `upstreamPort`; answers "calls" (and forgets them) whenever asked. */
async function serve(upstreamPort: number): Promise<void> {
  let calls: Call[] = [];
  // Connections to the server are kept, as the client keeps its own to the proxy.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const server = http.createServer((req, res) => {
    const start = preciseNow();
    const path = req.url ?? "";
    const upstream = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.on("finish", () => calls.push({ path, status: answer.statusCode ?? 0, start, end: preciseNow() }));
        answer.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      calls.push({ path, status: 502, start, end: preciseNow() });
      res.writeHead(502, { "content-type": "text/plain" }).end(`proxy: ${error.message}`);
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.on("message", (message) => {
    if (message !== "calls") return;
    process.send!(calls);
    calls = [];
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ port: (server.address() as AddressInfo).port });
}

/** Starts the proxy in front of the API server on `upstreamPort`. */
export async function startCountingProxy(upstreamPort: number) {
  const child = fork(__filename, ["serve", String(upstreamPort)], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the counting proxy exited with ${code}`));
      child.once("exit", exited);
      child.once("message", (message) => {
        child.off("exit", exited);
        resolve(message as T);
      });
    });
  const { port } = await next<{ port: number }>();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    /** The calls since the last take, in the order they ended. */
    async take(): Promise<Call[]> {
      const answer = next<Call[]>();
      child.send("calls");
      return answer;
    },
    close: () => new Promise<void>((resolve) => (child.exitCode === null ? child.once("exit", () => resolve()).disconnect() : resolve())),
  };
}

export type CountingProxy = Awaited<ReturnType<typeof startCountingProxy>>;

if (process.argv[2] === "serve") void serve(Number(process.argv[3]));
