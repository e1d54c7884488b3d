import type { Logger } from "@vigil/logging";

/** A logger that keeps what it is told, to check what reaches the logs. */
export function recordingLogger() {
  const lines: { level: string; fields: unknown; message: string }[] = [];
  const at = (level: string) => (fields: unknown, message: string) => lines.push({ level, fields, message });
  return { lines, logger: { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") } as unknown as Logger };
}
