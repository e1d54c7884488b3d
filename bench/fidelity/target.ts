// The target of bench/fidelity.ts, in a child process of its own: `GET /delay/N?id=<id>` answers 200 "ok" N ms
// after its request arrived, on a timer, and keeps how long it really took (answer sent − request arrived, by
// its own clock) under the request's id: the truth the benchmark compares each check with. A timer fires up to
// a millisecond or two late, so N alone would charge that to the client; an earlier version answered at exactly
// N ms by polling the clock on every turn of its event loop for the last 2 ms, which cost up to a core of a
// 2-core machine at a few hundred requests a second, CPU taken from the clients it measured.
// Tells its parent { port } over IPC, then answers "truths" with { truths: [id, ms[]][] } (each id's requests in
// the order they came: a scheduled monitor's URL, and so its id, is the same at every run; and forgets them);
// exits when the parent disconnects.
import http from "node:http";
import type net from "node:net";

const truths = new Map<string, number[]>();

const server = http.createServer((request, response) => {
  const arrived = process.hrtime.bigint();
  const match = /^\/delay\/(\d+)(?:\?id=([\w-]+))?$/.exec(request.url ?? "");
  if (!match) return void response.writeHead(404).end();
  const [, delayMs, id] = match;
  setTimeout(() => {
    response.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    response.end("ok");
    if (id === undefined) return;
    const took = Number(process.hrtime.bigint() - arrived) / 1e6;
    const kept = truths.get(id);
    if (kept) kept.push(took);
    else truths.set(id, [took]);
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
