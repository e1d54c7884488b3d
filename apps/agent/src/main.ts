#!/usr/bin/env node
import { connectRedis, logWorkerErrors, watchRedis } from "@vigil/queue";
import { loadConfig } from "./config";
import { startHealthServer } from "./health";
import { createLogger } from "@vigil/logging";
import { shutDown } from "./shutdown";
import { MetricExports } from "./metrics-export";
import { exportInFlight, labelRegion, registry } from "./metrics";
import { chooseInFlightLimit, logInFlightLimit, processLimits } from "./in-flight-limit";
import { agentName, startCheckWorker } from "./worker";
import { CheckThreads } from "./check-threads";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, "agent");
  const redis = connectRedis(config.redis, `vigil-agent:${config.region}`);
  // Watched from the start: until a listener is on it, ioredis prints each failed attempt on stderr, and the worker
  // starts only after the check threads' warm-up.
  const redisState = watchRedis(redis, logger, "check worker");

  labelRegion(config.region);
  const limits = processLimits();
  const inFlight = chooseInFlightLimit(config.concurrency, limits);
  logInFlightLimit(inFlight, limits, logger);
  const threads = await CheckThreads.start(config.checkThreads, { dnsServers: config.dnsServers, addressPolicy: config.addressPolicy.settings }, logger);
  const metrics = new MetricExports({ ...config.otlp, region: config.region, instanceId: agentName(), addressPolicy: config.addressPolicy }, logger);
  const checks = startCheckWorker(config, inFlight.limit, (job) => threads.run(job), redis, metrics, logger);
  logWorkerErrors(checks.worker, redis, redisState, logger);
  exportInFlight(inFlight, checks.running);
  const health = await startHealthServer(
    { region: config.region, connected: checks.connected, running: checks.running },
    config.healthPort,
    config.healthHost,
    registry,
  );
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A job cut short here stays locked and runs again on another agent once it stalls.
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, running: checks.running() }, "shutting down: finishing the checks in progress");
    try {
      await shutDown(checks, redis, logger);
      await threads.close();
      await metrics.shutdown();
      await health.close();
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
    logger.info("agent stopped");
    process.exit(0);
  };
  process.on("SIGTERM", (signal) => void stop(signal));
  process.on("SIGINT", (signal) => void stop(signal));
  // Said after the handlers are on: whoever waits for this line may signal the agent at once.
  logger.info({ healthPort: health.port }, "health endpoint listening");

  // Redis may not be up yet: the worker waits for it, and a signal still stops the agent meanwhile.
  try {
    await checks.worker.waitUntilReady();
  } catch (error) {
    // Stopping drops the connection being waited for, and the wait may then fail with the last
    // connection error: that is the stop's doing, and the stop ends the process itself.
    if (!stopping) throw error;
  }
  if (stopping) return;
  logger.info(
    {
      region: config.region,
      concurrency: inFlight.limit,
      checkThreads: config.checkThreads,
      queue: checks.queueName,
      prefix: config.redisPrefix,
      healthPort: health.port,
      addressPolicy: config.addressPolicy.settings,
    },
    "agent started",
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`vigil agent failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
