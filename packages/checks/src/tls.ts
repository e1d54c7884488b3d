/**
 * TLS for the checks that connect over it (HTTPS, gRPC with tls): the
 * handshake on a connection already made, verified as usual against the
 * target's host, and the facts of the certificate it verified.
 */
import { X509Certificate } from "node:crypto";
import type { Socket } from "node:net";
import { isIP } from "node:net";
import { connect as connectTls, type DetailedPeerCertificate, type TLSSocket } from "node:tls";
import type { CertificateInfo } from "@vigil/domain/certificates";
import type { Deadline } from "./deadline";
import { TargetFailure, codeOf, messageOf } from "./errors";
import { ready } from "./network";

/**
 * The TLS handshake over `socket`, offering the one application protocol (ALPN) the check speaks. Rejects with a
 * TargetFailure of reason tls (the socket destroyed), or with the deadline's reason when the attempt ended.
 */
export async function secureConnection(socket: Socket, host: string, protocol: "http/1.1" | "h2", deadline: Deadline): Promise<TLSSocket> {
  try {
    const servername = isIP(host) === 0 ? host : undefined; // SNI carries names only
    // The certificate is verified as usual, against `host`.
    return await ready(connectTls({ socket, host, servername, ALPNProtocols: [protocol] }), "secureConnect", deadline);
  } catch (error) {
    socket.destroy();
    if (deadline.ended) throw error;
    // A reset during the handshake is a TLS failure too: it is how many servers refuse a TLS version or name.
    throw new TargetFailure(describeTlsError(error, host), "tls");
  }
}

/**
 * The verified certificate's facts: the leaf's expiry, issuer and names, and
 * the earliest expiry of the chain as the handshake built it (what the server
 * sent, completed from the trusted CAs), each certificate once. (Only the
 * detailed peer certificate is asked for: in Node 20, asking
 * getPeerX509Certificate() first leaves getPeerCertificate() answering {}.)
 */
export function certificateOf(socket: TLSSocket): CertificateInfo | null {
  const detailed = socket.getPeerCertificate(true);
  if (!detailed?.raw) return null;
  const leaf = new X509Certificate(detailed.raw);
  let chainNotAfter = Date.parse(leaf.validTo);
  const seen = new Set<string>();
  for (let c: DetailedPeerCertificate | undefined = detailed; c?.valid_to && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    chainNotAfter = Math.min(chainNotAfter, Date.parse(c.valid_to));
  }
  return {
    notAfter: new Date(leaf.validTo).toISOString(),
    issuer: leaf.issuer.split("\n").join(", "),
    subjectAltNames: leaf.subjectAltName ? leaf.subjectAltName.split(", ") : [],
    chainNotAfter: new Date(chainNotAfter).toISOString(),
  };
}


function describeTlsError(error: unknown, host: string): string {
  const code = codeOf(error);
  if (code === "ECONNRESET") return `connection reset during the TLS handshake with ${host}`;
  return `TLS handshake with ${host} failed: ${messageOf(error)}${code ? ` (${code})` : ""}`;
}
