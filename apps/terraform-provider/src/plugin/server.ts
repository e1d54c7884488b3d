import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { Certificate } from "./certificate.js";

export type PluginHandler = (request: Http2ServerRequest, response: Http2ServerResponse) => void;

/**
 * gRPC over TLS, as go-plugin's client expects: only Terraform, holding the
 * private key of PLUGIN_CLIENT_CERT, can connect. It accepts no connections of
 * its own: the launcher's socket hands them over (see socket.ts).
 */
export function createPluginServer(certificate: Certificate, clientCertificatePem: string, handler: PluginHandler): Http2SecureServer {
  return createSecureServer(
    {
      key: certificate.privateKey.export({ type: "pkcs8", format: "pem" }),
      cert: certificate.pem,
      ca: clientCertificatePem,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
    },
    handler,
  );
}
