// What a loopback exchange costs a client that has been idle, the floor under bench/fidelity.ts's low-load
// figures. In this one process, with no agent, no Redis and no other process: a TCP server on loopback that answers
// a GET at once, and a client that connects, writes the GET and reads the answer, timed with performance.now at
// each step (the socket built, connect() returned, the connect event, the answer's last byte). Exchanges come
// BENCH_GAPS ms apart (1, 10, 100: a check every 100 ms is the benchmark's low load), and once more at the
// longest gap with the thread kept busy for BENCH_SPIN_MS before each (a core that never went idle: if the cost
// came from waking a halted virtual core, this would remove it). BENCH_EXCHANGES (200) per row.
// Usage: node --import tsx bench/fidelity/cold-path.ts. Prints a Markdown table.
import net from "node:net";
import { performance } from "node:perf_hooks";
import { percentile, sortedCopy } from "../pipeline/common";

const GAPS_MS = (process.env.BENCH_GAPS ?? "1,10,100").split(",").map(Number);
const SPIN_MS = Number(process.env.BENCH_SPIN_MS ?? 2);
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 200);

interface Exchange {
  built: number;
  connectCalled: number;
  connected: number;
  answered: number;
}

const ANSWER = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok";

function exchange(port: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const socket = new net.Socket();
    const built = performance.now();
    let connected = 0;
    let received = "";
    socket.once("connect", () => {
      connected = performance.now();
      socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (!received.endsWith("\r\n\r\nok")) return;
      const answered = performance.now();
      socket.destroy();
      resolve({ built: built - began, connectCalled: connectCalled - built, connected: connected - began, answered: answered - began });
    });
    socket.once("error", reject);
    socket.connect({ host: "127.0.0.1", port });
    const connectCalled = performance.now();
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function row(port: number, gapMs: number, spinMs: number): Promise<string> {
  const exchanges: Exchange[] = [];
  for (let i = 0; i < EXCHANGES; i++) {
    await pause(gapMs);
    if (spinMs > 0) spin(spinMs);
    exchanges.push(await exchange(port));
  }
  const cell = (pick: (e: Exchange) => number) => {
    const values = sortedCopy(exchanges.map(pick));
    return `${percentile(values, 50).toFixed(3)} / ${percentile(values, 99).toFixed(3)}`;
  };
  const label = spinMs > 0 ? `${gapMs} ms, busy ${spinMs} ms before` : `${gapMs} ms`;
  return `| ${label} | ${cell((e) => e.built)} | ${cell((e) => e.connectCalled)} | ${cell((e) => e.connected)} | ${cell((e) => e.answered)} |`;
}

async function main(): Promise<void> {
  const server = net.createServer((socket) => {
    socket.on("data", () => socket.end(ANSWER));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  // Compiled and warm before anything is measured.
  for (let i = 0; i < 500; i++) await exchange(port);
  const rows = [];
  for (const gapMs of GAPS_MS) rows.push(await row(port, gapMs, 0));
  if (SPIN_MS > 0) rows.push(await row(port, Math.max(...GAPS_MS), SPIN_MS));
  server.close();
  console.log(
    [
      `${EXCHANGES} exchanges per row; ms, p50 / p99 (from the first step: building the socket):`,
      "",
      "| Gap between exchanges | Socket built | connect() returned (after built) | Connect event | Answer's last byte |",
      "|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
}

void main();
