import type { Interceptor } from "@connectrpc/connect";
import pino, { type Logger } from "pino";

const LEVELS: Record<string, string> = { trace: "trace", json: "trace", debug: "debug", info: "info", warn: "warn", error: "error", off: "silent" };

/**
 * The level Terraform's own logging asks for (TF_LOG_PROVIDER, else TF_LOG,
 * which the provider inherits): lines below it would be dropped by Terraform anyway.
 */
function logLevel(env: NodeJS.ProcessEnv): string {
  const asked = (env.TF_LOG_PROVIDER || env.TF_LOG || "").toLowerCase();
  return LEVELS[asked] ?? "warn";
}

/**
 * JSON lines on stderr in hclog's shape (@level, @message, @timestamp), which
 * Terraform shows at the right level under TF_LOG. stdout is the handshake's alone.
 */
export function createPluginLogger(env: NodeJS.ProcessEnv): Logger {
  return pino(
    {
      level: logLevel(env),
      base: { "@module": "provider.service" },
      messageKey: "@message",
      timestamp: () => `,"@timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ "@level": label }) },
      redact: { paths: ["api_token", "*.api_token", "apiKey", "*.apiKey"], censor: "[redacted]" },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** One debug line per call, by method name and duration (never the values: they may hold secrets). */
export const logCalls =
  (logger: Logger): Interceptor =>
  (next) =>
  async (request) => {
    const started = performance.now();
    try {
      return await next(request);
    } finally {
      logger.debug({ method: request.method.name, ms: Math.round(performance.now() - started) }, "call");
    }
  };
