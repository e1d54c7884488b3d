import { chmodSync, rmSync } from "node:fs";
import http from "node:http";
import { connectNodeAdapter, createConnectTransport } from "@connectrpc/connect-node";
import { createClient, type Client } from "@connectrpc/connect";
import { AdminService } from "@vigil/proto/admin";
import type { Logger } from "@vigil/logging";
import { adminInterceptors, adminService } from "./admin-service";
import type { Administration } from "./operations";

/**
 * Serves AdminService on a Unix socket that only the service's user can open
 * (mode 0600): while the service holds the embedded database, this is how
 * `vigil-admin` reaches it. It is never on the network.
 */
export async function serveAdminSocket(path: string, admin: Administration, logger: Logger, publicUrl: string): Promise<() => Promise<void>> {
  rmSync(path, { force: true });
  const server = http.createServer(
    connectNodeAdapter({ routes: (router) => router.service(AdminService, adminService(admin, publicUrl)), interceptors: adminInterceptors(admin, logger) }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  chmodSync(path, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

export function adminSocketClient(path: string): Client<typeof AdminService> {
  return createClient(
    AdminService,
    createConnectTransport({ baseUrl: "http://vigil-admin", httpVersion: "1.1", nodeOptions: { socketPath: path } }),
  );
}
