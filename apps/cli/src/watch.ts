import { setTimeout as sleep } from "node:timers/promises";
import { InvalidArgumentError } from "commander";
import type { Output } from "./output.js";

export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError("must be a number of seconds above 0");
  return seconds;
}

/**
 * Prints `render()` every `intervalSeconds` until Ctrl-C: redrawn in place on a
 * terminal, one print after another otherwise (for logs and pipes).
 */
export async function watch(out: Output, intervalSeconds: number, render: (signal: AbortSignal) => Promise<string>): Promise<void> {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once("SIGINT", interrupt);
  const terminal = Boolean(process.stdout.isTTY);
  let linesShown = 0;
  try {
    while (!stop.signal.aborted) {
      let text: string;
      try {
        text = await render(stop.signal);
      } catch (error) {
        if (stop.signal.aborted) break;
        throw error;
      }
      if (terminal) {
        const screen = `${out.colors.dim(`every ${intervalSeconds}s, at ${new Date().toLocaleTimeString()} (Ctrl-C to stop)`)}\n${text}\n`;
        // Back to the first line of the previous screen, and clear from there.
        process.stdout.write((linesShown ? `\x1b[${linesShown}F\x1b[J` : "") + screen);
        linesShown = screen.split("\n").length - 1;
      } else {
        out.write(text);
      }
      await sleep(intervalSeconds * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    process.off("SIGINT", interrupt);
  }
}
