// The targets of bench/peer.ts, in a child process of its own: `GET /t/<i>?delay=<ms>` answers 200 "ok" <ms> after
// the request arrived, and keeps when each request of each target <i> arrived (epoch ms, to the microsecond), so
// that the punctuality of both systems is read off one clock, the targets'. Tells its parent { port } over IPC;
// answers "arrivals" with { arrivals: [target, times][] } and "count" with { count } (requests since the last
// "reset", which forgets them); exits when the parent disconnects.
import http from "node:http";
import type net from "node:net";

const arrivals = new Map<string, number[]>();
let count = 0;

const server = http.createServer((request, response) => {
  const arrivedAt = performance.timeOrigin + performance.now();
  const match = /^\/t\/(\d+)\?delay=(\d+)$/.exec(request.url ?? "");
  if (!match) return void response.writeHead(404).end();
  const [, target, delayMs] = match;
  const kept = arrivals.get(target!);
  if (kept) kept.push(arrivedAt);
  else arrivals.set(target!, [arrivedAt]);
  count++;
  setTimeout(() => {
    response.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    response.end("ok");
  }, Number(delayMs));
});

server.listen(0, "127.0.0.1", 4096, () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
process.on("message", (message) => {
  if (message === "arrivals") process.send?.({ arrivals: [...arrivals] });
  else if (message === "count") process.send?.({ count });
  else if (message === "reset") {
    arrivals.clear();
    count = 0;
  }
});
process.once("disconnect", () => process.exit(0));
