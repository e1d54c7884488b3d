import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One OTLP export the collector received. */
export interface Export {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A stand-in OpenTelemetry collector on loopback: it keeps every request it receives. */
export interface Collector {
  /** "http://127.0.0.1:PORT" */
  origin: string;
  exports: Export[];
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const exports: Export[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      exports.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks) });
      const json = request.headers["content-type"] === "application/json";
      // An empty ExportMetricsServiceResponse: full success.
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
