// The real agent in a process of its own (apps/agent/dist/main.js, as `npm start` runs it), for the benchmarks
// that measure it (bench/fidelity.ts, bench/outage-storm.ts, bench/peer.ts).
import { startService, type ServiceOptions, type ServiceProcess } from "./service";

export type { LogEntry } from "./service";

export interface AgentProcess extends ServiceProcess {
  healthPort: number;
}

/**
 * Starts it with `env` added to the benchmark's environment, on loopback targets (the SSRF guard allows them),
 * and resolves once it logs "agent started".
 */
export async function startAgent(env: NodeJS.ProcessEnv, options: ServiceOptions = {}): Promise<AgentProcess> {
  const agent = await startService(
    "agent",
    "agent started",
    { ALLOW_PRIVATE_TARGETS: "true", HEALTH_PORT: "0", HEALTH_HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    options,
  );
  return { ...agent, healthPort: agent.ready.healthPort as number };
}
