// The target of bench/fidelity.ts, in a child process of its own: `GET /delay/N` answers 200 "ok" exactly N ms
// after its request arrived. A timer alone fires up to a millisecond or two late (and later still on a busy
// machine), which would be charged to the agent: the timer wakes the target 2 ms early and it then polls the
// clock on every turn of its event loop until the moment, so the answer leaves within microseconds of it.
// Each answer's own lateness (sent − arrived − N) is kept, and reported to the parent on request, so the
// benchmark shows how exact the truth was. Tells its parent { port } over IPC; exits when the parent disconnects.
import http from "node:http";
import type net from "node:net";

const EARLY_MS = 2;
const lateness: number[] = [];

function answerAt(response: http.ServerResponse, arrived: bigint, delayMs: number): void {
  const due = arrived + BigInt(Math.round(delayMs * 1e6));
  const poll = () => {
    if (process.hrtime.bigint() < due) return void setImmediate(poll);
    response.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    response.end("ok");
    lateness.push(Number(process.hrtime.bigint() - due) / 1e6);
  };
  setTimeout(poll, Math.max(0, delayMs - EARLY_MS));
}

const server = http.createServer((request, response) => {
  const arrived = process.hrtime.bigint();
  const delay = /^\/delay\/(\d+)/.exec(request.url ?? "");
  if (!delay) return void response.writeHead(404).end();
  answerAt(response, arrived, Number(delay[1]));
});
server.keepAliveTimeout = 0;

server.listen(0, "127.0.0.1", 4096, () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
process.on("message", (message) => {
  if (message === "lateness") process.send?.({ lateness: lateness.splice(0) });
});
process.once("disconnect", () => process.exit(0));
