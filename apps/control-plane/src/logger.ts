import pino, { type Logger } from "pino";

export type { Logger };

/** Structured JSON logs on stdout; API keys and passwords never reach them. */
export function createLogger(level: string, name = "control-plane"): Logger {
  return pino({
    name,
    level,
    base: { service: `vigil-${name}` },
    redact: { paths: ["*.headers['x-service-key']", "*.key", "*.password", "key", "password"], censor: "[redacted]" },
  });
}
