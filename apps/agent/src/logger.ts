import pino, { type Logger } from "pino";

export type { Logger };

/** Structured JSON logs on stdout, shaped like the control plane's. */
export function createLogger(level: string, name = "agent"): Logger {
  return pino({ name, level, base: { service: `vigil-${name}` } });
}
