// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API first.
import "reflect-metadata";
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";
import { KeyObject, type webcrypto } from "node:crypto";

export interface Certificate {
  /** The certificate in DER, as the handshake line carries it. */
  der: Buffer;
  pem: string;
  privateKey: KeyObject;
}

const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256" };

/**
 * A self-signed ECDSA P-256 certificate for localhost, like the one go-plugin
 * makes for its automatic mutual TLS: a CA (Terraform verifies the server
 * against it as its own root) that may serve and sign in as a client.
 */
export async function createCertificate(now = new Date()): Promise<Certificate> {
  // Node's global WebCrypto, which is also the library's default crypto provider.
  const keys = (await crypto.subtle.generateKey(ECDSA_P256, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const certificate = await X509CertificateGenerator.createSelfSigned({
    name: [{ O: ["HashiCorp"] }, { CN: ["localhost"] }],
    // Valid from a little before now: the clocks of Terraform and the provider are the same machine's, but rounding is not.
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 24 * 3_600_000),
    keys,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: [
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.keyCertSign, true),
      new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth]),
      new BasicConstraintsExtension(true, undefined, true),
      new SubjectAlternativeNameExtension([{ type: "dns", value: "localhost" }]),
    ],
  });
  return { der: Buffer.from(certificate.rawData), pem: certificate.toString("pem"), privateKey: KeyObject.from(keys.privateKey) };
}
