// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API first.
import "reflect-metadata";
import { randomBytes, type webcrypto } from "node:crypto";
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
  type X509Certificate,
} from "@peculiar/x509";

const DAY_MS = 86_400_000;
const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING = { name: "ECDSA", hash: "SHA-256" };

interface Issued {
  certificate: X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

/** What a TLS server serves: its key and its chain (leaf first), in PEM, as node:tls takes them. */
export interface ServedCertificate {
  key: string;
  cert: string;
  /** The leaf's notAfter, and the chain's earliest (its intermediate's, when that expires first). */
  notAfter: Date;
  chainNotAfter: Date;
}

/**
 * A test PKI: a root CA (trusted by handing `rootPem` to a client, or to an
 * agent as NODE_EXTRA_CA_CERTS) and an intermediate that issue certificates
 * for localhost and 127.0.0.1 expiring when each test needs.
 */
export interface TestPki {
  rootPem: string;
  /** A leaf for `names` (localhost and 127.0.0.1 by default) issued by the intermediate, expiring `days` from `now` (negative: expired). */
  leaf(days: number, options?: { intermediateDays?: number; now?: Date; names?: string[] }): Promise<ServedCertificate>;
}

const newKeys = async () => (await crypto.subtle.generateKey(ECDSA_P256, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
const serial = () => randomBytes(8).toString("hex").replace(/^[89a-f]/, "1");

async function issue(subject: string, notAfter: Date, issuer: Issued | null, ca: boolean, names: string[] = []): Promise<Issued> {
  const keys = await newKeys();
  const extensions = [
    new BasicConstraintsExtension(ca, undefined, true),
    new KeyUsagesExtension(ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature, true),
    await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ...(issuer ? [await AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey)] : []),
    ...(names.length > 0 ? [new SubjectAlternativeNameExtension(names.map((value) => (/^\d/.test(value) ? { type: "ip" as const, value } : { type: "dns" as const, value })))] : []),
  ];
  const notBefore = new Date(Math.min(Date.now(), notAfter.getTime()) - DAY_MS);
  const certificate = await X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: subject,
    issuer: issuer ? issuer.certificate.subject : subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: (issuer ?? { keys }).keys.privateKey,
    signingAlgorithm: SIGNING,
    extensions,
  });
  return { certificate, keys };
}

const pemKey = async (keys: webcrypto.CryptoKeyPair) => {
  const der = Buffer.from(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
};

export async function createTestPki(): Promise<TestPki> {
  const root = await issue("CN=Vigil Test Root CA, O=Vigil Tests", new Date(Date.now() + 3650 * DAY_MS), null, true);
  return {
    rootPem: root.certificate.toString("pem"),
    async leaf(days, options = {}) {
      const now = options.now ?? new Date();
      const at = (d: number) => new Date(now.getTime() + d * DAY_MS);
      const intermediate = await issue("CN=Vigil Test Intermediate, O=Vigil Tests", at(options.intermediateDays ?? 3650), root, true);
      const names = options.names ?? ["localhost", "127.0.0.1"];
      const leaf = await issue(`CN=${names[0]}`, at(days), intermediate, false, names);
      return {
        key: await pemKey(leaf.keys),
        cert: `${leaf.certificate.toString("pem")}\n${intermediate.certificate.toString("pem")}\n`,
        notAfter: leaf.certificate.notAfter,
        chainNotAfter: new Date(Math.min(leaf.certificate.notAfter.getTime(), intermediate.certificate.notAfter.getTime())),
      };
    },
  };
}
