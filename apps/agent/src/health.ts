import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface HealthStatus {
  region: string;
  connected(): boolean;
  running(): number;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Answers `GET /healthz` for probes: 200 while the worker is connected to
 * Redis and takes jobs, 503 otherwise (Redis unreachable, shutting down).
 */
export async function startHealthServer(status: HealthStatus, port: number, host: string): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/healthz" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    const ok = status.connected();
    const body = JSON.stringify({ status: ok ? "ok" : "unavailable", region: status.region, running: status.running() });
    response.writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Probes use keep-alive; do not let them hold the shutdown.
        server.closeAllConnections();
      }),
  };
}
