// The targets checked by bench/checks.ts, started in a child process of their own so that serving
// the checks never shares the benchmark's event loop (which would count the target's work as the agent's).
//   GET /          -> 200 "ok" at once
//   GET /delay/N   -> 200 "ok" after N ms (timing fidelity: the answer's delay is known)
//   TCP listener   -> accepts and closes
// Tells its parent { httpPort, tcpPort } over IPC; exits when the parent disconnects.
import http from "node:http";
import net from "node:net";

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

  const [httpPort, tcpPort] = await Promise.all([listen(httpServer), listen(tcpServer)]);
  process.send?.({ httpPort, tcpPort });
  process.once("disconnect", () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench target failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
