// The target of bench/fidelity.ts, in a child process of its own: `GET /delay/N?id=<id>` answers 200 "ok" N ms
// after its request arrived, on a timer, and keeps how long it really took (answer sent − request arrived, by
// its own clock) under the request's id: the truth by the target's clock (the wire's is bench/fidelity/wire.ts). A timer fires up to
// a millisecond or two late, so N alone would charge that to the client; an earlier version answered at exactly
// N ms by polling the clock on every turn of its event loop for the last 2 ms, which cost up to a core of a
// 2-core machine at a few hundred requests a second, CPU taken from the clients it measured.
// With each time it keeps the client's port and when the request arrived (Date.now()), by which
// bench/fidelity/wire.ts finds the request's packets.
// Tells its parent { port } over IPC, then answers "truths" with { truths: [id, Truth[]][] } (each id's requests in
// the order they came: a scheduled monitor's URL, and so its id, is the same at every run; and forgets them);
// exits when the parent disconnects.
import http from "node:http";
import type net from "node:net";

export interface Truth {
  /** Answer sent − request arrived, in ms. */
  tookMs: number;
  clientPort: number;
  arrivedAt: number;
}

const truths = new Map<string, Truth[]>();

const server = http.createServer((request, response) => {
  const arrived = process.hrtime.bigint();
  const [arrivedAt, clientPort] = [Date.now(), request.socket.remotePort!];
  const match = /^\/delay\/(\d+)(?:\?id=([\w-]+))?$/.exec(request.url ?? "");
  if (!match) return void response.writeHead(404).end();
  const [, delayMs, id] = match;
  setTimeout(() => {
    response.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    response.end("ok");
    if (id === undefined) return;
    const truth: Truth = { tookMs: Number(process.hrtime.bigint() - arrived) / 1e6, clientPort, arrivedAt };
    const kept = truths.get(id);
    if (kept) kept.push(truth);
    else truths.set(id, [truth]);
  }, Number(delayMs));
});
server.keepAliveTimeout = 0;

server.listen(0, "127.0.0.1", 4096, () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
process.on("message", (message) => {
  if (message !== "truths") return;
  process.send?.({ truths: [...truths] });
  truths.clear();
});
process.once("disconnect", () => process.exit(0));
