import { setTimeout as sleep } from "node:timers/promises";
import { InvalidArgumentError } from "commander";
import type { Output } from "./output.js";

export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError("must be a number of seconds above 0");
  return seconds;
}

/**
 * Shows each screen `screens` yields, until Ctrl-C or their end: redrawn in place on a terminal under
 * `caption()`, printed one after another otherwise (for logs and pipes).
 */
export async function showScreens(out: Output, caption: () => string, screens: (signal: AbortSignal) => AsyncIterable<string>): Promise<void> {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once("SIGINT", interrupt);
  const terminal = Boolean(process.stdout.isTTY);
  let linesShown = 0;
  try {
    for await (const text of screens(stop.signal)) {
      if (terminal) {
        const screen = `${out.colors.dim(`${caption()} (Ctrl-C to stop)`)}\n${text}\n`;
        // Back to the first line of the previous screen, and clear from there.
        process.stdout.write((linesShown ? `\x1b[${linesShown}F\x1b[J` : "") + screen);
        linesShown = screen.split("\n").length - 1;
      } else {
        out.write(text);
      }
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    process.off("SIGINT", interrupt);
  }
}

/** Shows `render()` every `intervalSeconds` until Ctrl-C, as showScreens does. */
export function watch(out: Output, intervalSeconds: number, render: (signal: AbortSignal) => Promise<string>): Promise<void> {
  return showScreens(
    out,
    () => `every ${intervalSeconds}s, at ${new Date().toLocaleTimeString()}`,
    async function* (signal) {
      while (!signal.aborted) {
        yield await render(signal);
        await sleep(intervalSeconds * 1000, undefined, { signal }).catch(() => undefined);
      }
    },
  );
}
