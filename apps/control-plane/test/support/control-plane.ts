import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@vigil/db";
import { DAILY_AGGREGATE_RETENTION_DAYS } from "@vigil/domain";
import { providerSettingsFromEnv } from "@vigil/notifications";
import { redisServerUrl } from "../../../../test/redis";
import { DEFAULT_RETRY_DELAYS_MS } from "../../src/alerting/retry-schedule";
import { NotificationRepository } from "../../src/notifications/repository";
import { GATHER_MS } from "../../src/results/consumer";
import { SecretBox } from "../../src/notifications/secrets";
import type { NotificationSetup, PipelineConfig } from "../../src/pipeline";
import type { StatusRules } from "../../src/status/rules";

/** The deployment rules tests run with: the default quorum, monitors without regions checked in hostA-ams. */
export const STATUS_RULES: StatusRules = { defaultRegions: ["hostA-ams"], quorum: "half" };

/** The pipeline's settings as a test deployment has them; `overrides` changes any. */
export function testPipelineConfig(redisPrefix: string, overrides: Partial<PipelineConfig> = {}): PipelineConfig {
  return {
    redis: { kind: "standalone", url: redisServerUrl() },
    redisPrefix,
    defaultRegions: [...STATUS_RULES.defaultRegions],
    quorum: STATUS_RULES.quorum,
    resultRetentionDays: 14,
    dailyAggregateRetentionDays: DAILY_AGGREGATE_RETENTION_DAYS.default,
    auditRetentionDays: 365,
    reconcileIntervalMs: 300_000,
    notificationConcurrency: 20,
    // Two on both backends, so that every pipeline test stores through lanes.
    ingestLanes: 2,
    ingestGatherMs: GATHER_MS,
    retryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS],
    ...overrides,
  };
}

/**
 * Channels stored with a key of the test's own, and provider settings from
 * `env` (the variables a deployment sets; PUBLIC_URL defaults to
 * https://vigil.test). Replicas of one deployment share `box`.
 */
export function testNotifications(prisma: PrismaClient, env: NodeJS.ProcessEnv = {}, box = new SecretBox(randomBytes(32)), clock?: () => Date) {
  const repository = new NotificationRepository(prisma, box);
  const settings = providerSettingsFromEnv(
    // Channels' endpoints are local doubles on loopback, which the SSRF guard refuses by default.
    { PUBLIC_URL: "https://vigil.test", NOTIFICATION_TIMEOUT_SECONDS: "2", ALLOW_PRIVATE_TARGETS: "true", ...env },
    "http://localhost",
  );
  const setup: NotificationSetup = { settings, loadChannels: (ids) => repository.findForDelivery(ids), clock };
  return { box, repository, settings, setup };
}
