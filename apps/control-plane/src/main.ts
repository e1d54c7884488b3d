#!/usr/bin/env node
import { applyMigrationsApart, describeTarget, openDatabase } from "@vigil/db";
import { Administration } from "./admin/operations";
import { serveAdminSocket } from "./admin/socket";
import { bootstrapFirstStart } from "./bootstrap";
import { ACCOUNTS } from "@vigil/domain";
import { inviteUrl } from "./accounts/invitations";
import { adminSocketPath, loadConfig, type ControlPlaneConfig } from "./config";
import { lockDataDir } from "./data-dir-lock";
import { NotificationRepository } from "./notifications/repository";
import { loadSecretBox } from "./notifications/secrets";
import { startPipeline } from "./pipeline";
import { createLogger, type Logger } from "@vigil/logging";
import { apiPartsOf, startApiServer } from "./server";

function failedToStart(error: unknown): never {
  process.stderr.write(`vigil control plane failed to start: ${(error as Error).message}\n`);
  process.exit(1);
}

function main(): void {
  let config: ControlPlaneConfig;
  try {
    config = loadConfig();
  } catch (error) {
    failedToStart(error);
  }
  const logger = createLogger(config.logLevel, "control-plane");
  // The handlers come before anything starts: a signal that arrives while the service starts (or just as it
  // says it is listening) stops it once it is up, instead of killing it with the data folder still locked.
  const running = start(config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const stopService = await running;
    logger.info({ signal }, "shutting down");
    await stopService();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  running.catch(failedToStart);
}

/** Starts every part of the control plane and answers the function that stops them in order. */
async function start(config: ControlPlaneConfig, logger: Logger): Promise<() => Promise<void>> {
  const embedded = config.database.kind === "pglite";
  const lock = embedded ? lockDataDir(config.dataDir) : undefined;
  if (lock?.abandonedBy) {
    logger.warn({ dataDir: config.dataDir, previousPid: lock.abandonedBy }, "the data folder's last holder ended without stopping; taking it over");
  }
  const applied = await applyMigrationsApart(config.database);
  const db = await openDatabase(config.database, {
    poolSize: config.databasePoolSize,
    onConnectionLost: (error) => logger.warn({ err: error.message }, "PostgreSQL ended an idle connection; the next query opens another"),
  });
  logger.info({ database: describeTarget(config.database), applied }, "database ready");

  if (embedded) {
    const first = await bootstrapFirstStart(db.prisma);
    // The key and the link go to the terminal once, never into the JSON logs.
    if (first) {
      process.stderr.write(
        `\nFirst start: created workspace "${first.slug}" and a write API key (id ${first.keyId}).\n` +
          `It is shown only now; send it in the x-service-key header:\n\n    ${first.key}\n\n` +
          `Make yourself its owner with this link (it works once, for ${ACCOUNTS.firstOwnerInvitationHours} hours):\n\n` +
          `    ${inviteUrl(config.providerSettings.publicUrl, first.ownerToken)}\n\n`,
      );
    }
  }

  const secrets = await loadSecretBox({ encryptionKey: config.encryptionKey, dataDir: config.dataDir, sharedDatabase: !embedded }, logger);
  const channels = new NotificationRepository(db.prisma, secrets);
  const settings = config.providerSettings;
  const pipeline = await startPipeline(db.prisma, config, logger, { settings, loadChannels: (ids) => channels.findForDelivery(ids) });
  const api = await startApiServer({
    prisma: db.prisma,
    ...apiPartsOf(pipeline, config.redisPrefix),
    notifications: { settings, secrets },
    logger,
    port: config.port,
    host: config.host,
    metricsEnabled: config.metricsEnabled,
    rateLimits: config.rateLimits,
    connectionLimits: config.connectionLimits,
    monitorsPerWorkspace: config.monitorsPerWorkspace,
    subscribersPerPage: config.subscribersPerPage,
    retryDelaysMs: config.retryDelaysMs,
    sessionSettings: config.sessions,
    reservedDomains: config.reservedDomains,
    consoleDir: config.consoleDir,
  });
  const closeAdmin = embedded
    ? await serveAdminSocket(adminSocketPath(config.dataDir), new Administration(db.prisma, pipeline.revocations), logger, settings.publicUrl)
    : async () => {};
  logger.info({ port: api.address().port, host: config.host, addressPolicy: settings.addressPolicy.settings }, "control plane listening");

  return async () => {
    await Promise.all([api.close(), closeAdmin()]);
    await pipeline.stop();
    await db.close();
    lock?.release();
  };
}

main();
