import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Certificate } from "./certificate.js";

export interface PluginServer {
  server: Http2SecureServer;
  socketPath: string;
}

/**
 * gRPC over TLS on a unix socket, as go-plugin's client expects: only
 * Terraform, holding the private key of PLUGIN_CLIENT_CERT, can connect.
 */
export async function listen(
  routes: (router: ConnectRouter) => void,
  certificate: Certificate,
  clientCertificatePem: string,
  socketDir: string | undefined,
  interceptors: Interceptor[],
): Promise<PluginServer> {
  const socketPath = join(socketDir || tmpdir(), `plugin${randomBytes(8).toString("hex")}`);
  const server = createSecureServer(
    {
      key: certificate.privateKey.export({ type: "pkcs8", format: "pem" }),
      cert: certificate.pem,
      ca: clientCertificatePem,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
    },
    connectNodeAdapter({ routes, interceptors, grpc: true, connect: false, grpcWeb: false }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  process.once("exit", () => rmSync(socketPath, { force: true }));
  return { server, socketPath };
}
