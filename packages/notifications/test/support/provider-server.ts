import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request as a provider's API received it. */
export interface Received {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, or as a form (urlencoded), or undefined. */
  json: unknown;
  form: URLSearchParams | undefined;
  at: number;
}

/** How the double answers one request; `hang` never answers, `afterMs` answers that much later. */
export interface Answer {
  status: number;
  body?: string | object;
  headers?: Record<string, string>;
  hang?: boolean;
  afterMs?: number;
}

/**
 * A local stand-in for a provider's API: it records every request and
 * answers with what `respond` returns (200 by default). Tests check the
 * recorded requests against the provider's documentation.
 */
export async function startProviderServer(respond: (request: Received) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const hanging = new Set<http.ServerResponse>();
  let answer = respond;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const type = String(req.headers["content-type"] ?? "");
      let json: unknown;
      if (type.includes("json")) {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      const form = type.includes("x-www-form-urlencoded") ? new URLSearchParams(body) : undefined;
      const request: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, json, form, at: Date.now() };
      received.push(request);
      waiters.splice(0).forEach((wake) => wake());
      const reply = answer(request);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const payload = typeof reply.body === "object" ? JSON.stringify(reply.body) : (reply.body ?? "");
      const headers = { ...(typeof reply.body === "object" ? { "content-type": "application/json" } : {}), ...reply.headers };
      const send = () => {
        hanging.delete(res);
        res.writeHead(reply.status, headers);
        res.end(payload);
      };
      if (reply.afterMs === undefined) return send();
      hanging.add(res);
      setTimeout(send, reply.afterMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Changes how later requests are answered. */
    answerWith(next: (request: Received) => Answer) {
      answer = next;
    },
    /** Resolves once `count` requests have arrived. */
    async waitFor(count: number, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200).unref();
        });
      }
      return received.slice(0, count);
    },
    async close() {
      hanging.forEach((res) => res.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type ProviderServer = Awaited<ReturnType<typeof startProviderServer>>;
