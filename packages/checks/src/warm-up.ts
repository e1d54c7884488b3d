/**
 * Runs the check engine against loopback servers of its own before an agent
 * takes its first job. A process's first checks run cold code (modules loaded
 * on first use, V8 compiling each function on its first calls): the agent's
 * very first HTTP check reported about 35 ms more than its target took, and
 * its next few several ms more. After these rounds the first real check
 * measures like any later one.
 */
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server } from "node:net";
import { AddressPolicy } from "@vigil/domain/address-policy";
import { parseMonitorConfig } from "@vigil/domain/monitor-config";
import { runCheck } from "./run";

/** Enough for V8 to have compiled the hot paths with type feedback; about a tenth of a second in all. */
export const WARM_UP_ROUNDS = 200;

const LOOPBACK_ONLY = new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: ["127.0.0.1/32"] });

async function listen(server: Server): Promise<number> {
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return (server.address() as AddressInfo).port;
}

const close = (server: Server) => new Promise<void>((closed) => server.close(() => closed()));

/** Resolves to the number of warm-up checks that succeeded (two per round when all is well). */
export async function warmUpChecks(rounds = WARM_UP_ROUNDS): Promise<number> {
  const http = createHttpServer((_request, response) => response.end("ok"));
  const tcp = createTcpServer((socket) => socket.on("error", () => {}).destroy());
  const [httpPort, tcpPort] = await Promise.all([listen(http), listen(tcp)]);
  const common = { name: "warm-up", periodicity: "30s", retry: 0, timeout: 5_000 };
  const httpConfig = parseMonitorConfig("http", { ...common, url: `http://127.0.0.1:${httpPort}/` });
  const tcpConfig = parseMonitorConfig("tcp", { ...common, uri: `127.0.0.1:${tcpPort}` });
  const env = { addressPolicy: LOOPBACK_ONLY };
  let succeeded = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const job of [{ kind: "http", config: httpConfig }, { kind: "tcp", config: tcpConfig }] as const) {
        if ((await runCheck(job, env)).status !== "error") succeeded++;
      }
    }
    return succeeded;
  } finally {
    http.closeAllConnections();
    await Promise.all([close(http), close(tcp)]);
  }
}
