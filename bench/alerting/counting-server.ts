// A lean stand-in for a provider's API in bench/alerting.ts: it notes when each message arrived
// and which path it was posted to, and answers 200 to a message `accepts` recognises, 400 (a final
// failure, never retried) to anything else, so a wrong message shows up as a missing one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

export interface Arrival {
  path: string;
  /** performance.now() when the whole body had arrived. */
  at: number;
}

export async function startCountingServer(accepts: (path: string, body: string) => boolean) {
  const arrivals: Arrival[] = [];
  const rejected: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = performance.now();
      const path = req.url ?? "";
      if (req.method === "POST" && accepts(path, Buffer.concat(chunks).toString("utf8"))) {
        arrivals.push({ path, at });
        res.writeHead(200).end();
      } else {
        rejected.push(`${req.method} ${path}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    rejected,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type CountingServer = Awaited<ReturnType<typeof startCountingServer>>;
