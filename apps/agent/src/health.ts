import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HEALTH_SERVER_LIMITS, http1ServerOptions, type ConnectionLimits } from "@vigil/domain/request-limits";
import type { Registry } from "prom-client";

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
 * Redis and takes jobs, 503 otherwise (Redis unreachable, shutting down);
 * and `GET /metrics` for Prometheus, from `metrics`. Slow, idle and
 * oversized requests are cut off by `limits` (docs/limits.md).
 */
export async function startHealthServer(status: HealthStatus, port: number, host: string, metrics: Registry,
  limits: ConnectionLimits = HEALTH_SERVER_LIMITS,
): Promise<HealthServer> {
  const server: Server = createServer(http1ServerOptions(limits), (request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/metrics" && request.method === "GET") {
      metrics.metrics().then(
        (body) => response.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" }).end(body),
        () => response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "metrics unavailable" })),
      );
      return;
    }
    if (path !== "/healthz" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    const ok = status.connected();
    const body = JSON.stringify({ status: ok ? "ok" : "unavailable", region: status.region, running: status.running() });
    response.writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(body);
  });
  server.maxConnections = limits.maxConnections;
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
