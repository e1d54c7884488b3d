// The check engine as bench/checks.ts measures it, and the jobs it runs: shared by the benchmark's
// main thread (timing fidelity) and its loop workers (throughput).
import path from "node:path";
import type { CheckEnvironment, CheckJob } from "@vigil/checks";
import { parseMonitorConfig, AddressPolicy } from "@vigil/domain";
import { assertBuilt } from "../support/built";
import { ROOT } from "../support/doc";

/** Another build of the engine (BENCH_CHECKS_DIST=<dir>), to try a change; the doc is left alone then. */
export const OTHER_ENGINE = process.env.BENCH_CHECKS_DIST ? path.resolve(process.env.BENCH_CHECKS_DIST) : undefined;

/** The check engine as the agent runs it: compiled by tsc into dist/ (bench/support/built.ts says why). */
function loadCheckEngine(): typeof import("@vigil/checks") {
  if (OTHER_ENGINE) return require(path.join(OTHER_ENGINE, "index.js"));
  assertBuilt("packages/checks");
  return require(path.join(ROOT, "packages/checks/dist/index.js"));
}
export const { runCheck, warmUpChecks } = loadCheckEngine();

// tsx turns source maps on, the agent (plain node on dist/) runs without them. With them, every
// Error.stack read costs far more.
process.setSourceMapsEnabled(false);

/**
 * What the agent passes runCheck (apps/agent/src/worker.ts): no abort signal, the system's resolver here,
 * and loopback opened as ALLOW_PRIVATE_TARGETS=true opens it: the bench's targets are local servers.
 */
export const AGENT_ENV: CheckEnvironment = { addressPolicy: AddressPolicy.fromEnv({ ALLOW_PRIVATE_TARGETS: "true" }) };

/** Retry 0: a failure must show as a failure, not as a slower success. */
export function httpJob(port: number, urlPath: string): CheckJob {
  const url = `http://127.0.0.1:${port}${urlPath}`;
  return { kind: "http", config: parseMonitorConfig("http", { name: "bench", url, periodicity: "30s", retry: 0, timeout: 10_000 }) };
}

export function tcpJob(port: number): CheckJob {
  return { kind: "tcp", config: parseMonitorConfig("tcp", { name: "bench", uri: `127.0.0.1:${port}`, periodicity: "30s", retry: 0, timeout: 10_000 }) };
}

export function grpcJob(port: number): CheckJob {
  return { kind: "grpc", config: parseMonitorConfig("grpc", { name: "bench", uri: `127.0.0.1:${port}`, periodicity: "30s", retry: 0, timeout: 10_000 }) };
}
