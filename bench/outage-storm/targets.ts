// The targets of bench/outage-storm.ts, in a process of their own so that their CPU is not the
// agent's or the benchmark's: one HTTP server on 127.0.0.1 where /hang/<n> reads the request and
// never answers (the check waits for its timeout) and /ok/<n> answers 200 after HEALTHY_DELAY_MS.
// Started by bench/outage-storm.ts with an IPC channel (it sends { port }); not run by hand.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const delayMs = Number(process.env.HEALTHY_DELAY_MS);

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  request.resume();
  if (request.url?.startsWith("/hang/")) return;
  const timer = setTimeout(() => response.end("ok"), delayMs);
  response.once("close", () => clearTimeout(timer));
});
// Node's own limits would answer or cut a hanging request before the check's timeout does.
server.requestTimeout = 0;
server.headersTimeout = 0;
server.keepAliveTimeout = 0;

server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("disconnect", () => process.exit(0));
