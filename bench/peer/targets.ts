// The parent's side of bench/peer/target.ts: N target URLs on one process, half answering after 20 ms and half after
// 200 ms, and what they saw.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";

export const DELAYS_MS = [20, 200];

export interface TargetUrl {
  url: string;
  delayMs: number;
}

export class Targets {
  private constructor(
    private readonly child: ChildProcess,
    readonly urls: TargetUrl[],
  ) {}

  static async start(count: number): Promise<Targets> {
    const child = fork(path.join(__dirname, "target.ts"), { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const port = await new Promise<number>((resolve, reject) => {
      child.once("message", (message: { port: number }) => resolve(message.port));
      child.once("exit", (code) => reject(new Error(`the targets' process exited with ${code}`)));
    });
    const urls = Array.from({ length: count }, (_, i) => {
      const delayMs = DELAYS_MS[i % DELAYS_MS.length]!;
      return { url: `http://127.0.0.1:${port}/t/${i}?delay=${delayMs}`, delayMs };
    });
    return new Targets(child, urls);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The delay of a target by its URL. */
  delayOf(url: string): number {
    const delay = /[?&]delay=(\d+)/.exec(url);
    if (!delay) throw new Error(`not a target's URL: ${url}`);
    return Number(delay[1]);
  }

  private ask<T>(question: string): Promise<T> {
    const answer = new Promise<T>((resolve) => this.child.once("message", resolve));
    this.child.send(question);
    return answer;
  }

  /** Forgets the requests so far. */
  reset(): void {
    this.child.send("reset");
  }

  /** Requests since the last reset. */
  async count(): Promise<number> {
    return (await this.ask<{ count: number }>("count")).count;
  }

  /** When each target's requests arrived since the last reset (epoch ms), by target. */
  async arrivals(): Promise<Map<string, number[]>> {
    return new Map((await this.ask<{ arrivals: [string, number[]][] }>("arrivals")).arrivals);
  }

  stop(): void {
    this.child.disconnect();
  }
}
