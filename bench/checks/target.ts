// The targets checked by bench/checks.ts, started in a child process of their own so that serving
// the checks never shares the benchmark's event loop (which would count the target's work as the agent's).
//   GET /          -> 200 "ok" at once
//   GET /delay/N   -> 200 "ok" after N ms (timing fidelity: the answer's delay is known)
//   TCP listener   -> accepts and closes
//   gRPC listener  -> grpc.health.v1.Health/Check over HTTP/2 (Connect's Node adapter): SERVING
// Tells its parent { httpPort, tcpPort, grpcPort } over IPC; exits when the parent disconnects.
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@vigil/proto/grpc";

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", 1024, () => resolve((server.address() as net.AddressInfo).port)));

async function main(): Promise<void> {
  const httpServer = http.createServer((request, response) => {
    const delay = /^\/delay\/(\d+)$/.exec(request.url ?? "");
    const answer = () => response.writeHead(200, { "content-type": "text/plain", "content-length": "2" }).end("ok");
    if (delay) setTimeout(answer, Number(delay[1]));
    else answer();
  });

  const tcpServer = net.createServer((socket) => {
    // The client may reset first (the TCP checks destroy their socket on connect); that is expected.
    socket.on("error", () => {});
    socket.destroy();
  });

  const grpcServer = http2.createServer(
    connectNodeAdapter({
      routes: (router) =>
        router.service(Health, {
          check: () => ({ status: HealthCheckResponse_ServingStatus.SERVING }),
        }),
      grpc: true,
      connect: false,
      grpcWeb: false,
    }),
  );
  // Each check's session is reset once it has its answer; that is expected.
  grpcServer.on("session", (session) => session.on("error", () => {}));

  const [httpPort, tcpPort, grpcPort] = await Promise.all([listen(httpServer), listen(tcpServer), listen(grpcServer as unknown as net.Server)]);
  process.send?.({ httpPort, tcpPort, grpcPort });
  process.once("disconnect", () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench target failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
