// The floor of bench/fidelity.ts: the same requests as the agent's checks, made the plainest way in a process
// of its own (net.connect, one GET written by hand, read until the answer is complete, timed with
// performance.now on the socket's events, from the connection attempt, as the agent times it since 2026-11-28).
// Whatever error this shows is the machine's (scheduling, loopback, the target), not the agent's. Asked over IPC
// with { port, delays, perDelay, rate }; answers with its samples.
import net from "node:net";
import { performance } from "node:perf_hooks";

export interface ProbeRequest {
  port: number;
  delays: number[];
  perDelay: number;
  rate: number;
}

export interface ProbeSample {
  /** The request's id at the target, which keeps its truth under it. */
  id: string;
  delayMs: number;
  latencyMs: number;
  connectMs: number;
  firstByteMs: number;
  transferMs: number;
}

function probe(port: number, delayMs: number, id: string): Promise<ProbeSample> {
  return new Promise((resolve, reject) => {
    let began = 0;
    let connected = 0;
    let firstByte = 0;
    let received = "";
    const socket = net.connect({ host: "127.0.0.1", port });
    // Node emits it just before the connect system call, which sends the SYN.
    socket.once("connectionAttempt", () => (began = performance.now()));
    socket.once("connect", () => {
      connected = performance.now();
      socket.write(`GET /delay/${delayMs}?id=${id} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk: Buffer) => {
      firstByte ||= performance.now();
      received += chunk.toString("latin1");
      // The target always answers "ok" with content-length 2.
      if (!received.endsWith("\r\n\r\nok")) return;
      const ended = performance.now();
      socket.destroy();
      resolve({ id, delayMs, latencyMs: ended - began, connectMs: connected - began, firstByteMs: firstByte - connected, transferMs: ended - firstByte });
    });
    socket.once("error", reject);
  });
}

process.on("message", async (request: ProbeRequest) => {
  const samples: ProbeSample[] = [];
  const started = performance.now();
  const total = request.perDelay * request.delays.length;
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const delayMs = request.delays[i % request.delays.length]!;
    running.push(probe(request.port, delayMs, `probe-${i}`).then((sample) => void samples.push(sample)));
    const wait = started + ((i + 1) * 1000) / request.rate - performance.now();
    if (wait > 0) await new Promise((next) => setTimeout(next, wait));
  }
  await Promise.all(running);
  process.send?.({ samples });
});
process.once("disconnect", () => process.exit(0));
