import { once } from "node:events";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream";

export interface DelayingProxyOptions {
  /** Requests whose path matches are held before they are forwarded. */
  delayed: RegExp;
  holdMs: number;
  /** How many matching requests go through at once before holding starts. */
  passFirst?: number;
}

/**
 * An HTTP/1.1 proxy on a loopback port in front of `target` that holds chosen
 * requests for a while: a slow network as the client sees it. A held request
 * whose client gives up is dropped unforwarded, so the server never learns of it
 * (what a request lost on the way looks like): `released` counts the held
 * requests the server did receive.
 */
export class DelayingProxy {
  held = 0;
  released = 0;
  /** Off: everything goes straight through. */
  holding = true;
  private passed = 0;
  private heldWaiters: (() => void)[] = [];

  private readonly server = createServer((req, res) => this.handle(req, res));

  private constructor(
    private readonly target: string,
    private readonly options: DelayingProxyOptions,
  ) {}

  static async start(target: string, options: DelayingProxyOptions): Promise<DelayingProxy> {
    const proxy = new DelayingProxy(target, options);
    proxy.server.listen(0, "127.0.0.1");
    await once(proxy.server, "listening");
    return proxy;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once a request is being held (at once if one already was). */
  firstHeld(): Promise<void> {
    if (this.held > 0) return Promise.resolve();
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const forward = () => {
      const upstream = request(new URL(req.url ?? "/", this.target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        pipeline(answer, res, () => undefined);
      });
      pipeline(req, upstream, (error) => error && res.destroy());
    };
    const matches = this.options.delayed.test(req.url ?? "");
    if (!this.holding || !matches || this.passed < (this.options.passFirst ?? 0)) {
      if (matches) this.passed++;
      forward();
      return;
    }
    this.held++;
    this.heldWaiters.splice(0).forEach((resolve) => resolve());
    const timer = setTimeout(() => {
      this.released++;
      res.off("close", giveUp);
      forward();
    }, this.options.holdMs);
    const giveUp = () => clearTimeout(timer);
    res.once("close", giveUp);
  }
}
