import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import * as der from "./der.js";

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  keyUsage: "2.5.29.15",
  extendedKeyUsage: "2.5.29.37",
  basicConstraints: "2.5.29.19",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

export interface Certificate {
  /** The certificate in DER, as the handshake line carries it. */
  der: Buffer;
  pem: string;
  privateKey: KeyObject;
}

const name = () =>
  der.sequence(
    der.set(der.sequence(der.objectIdentifier(OID.organization), der.utf8String("HashiCorp"))),
    der.set(der.sequence(der.objectIdentifier(OID.commonName), der.utf8String("localhost"))),
  );

const extension = (oid: string, critical: boolean, value: Buffer) =>
  der.sequence(der.objectIdentifier(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(value));

/**
 * A self-signed ECDSA P-256 certificate for localhost, like the one go-plugin
 * makes for its automatic mutual TLS (a CA that may serve and sign in as a
 * client). Written by hand: a general X.509 library costs more start-up time
 * than Terraform's several launches per command can afford.
 */
export function createCertificate(now = new Date()): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const algorithm = der.sequence(der.objectIdentifier(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = der.sequence(
    der.explicit(0, der.unsignedInteger(Buffer.from([2]))),
    der.unsignedInteger(serial),
    algorithm,
    name(),
    // Valid from a little before now: the clocks of Terraform and the provider are the same machine's, but rounding is not.
    der.sequence(der.utcTime(new Date(now.getTime() - 60_000)), der.utcTime(new Date(now.getTime() + 24 * 3_600_000))),
    name(),
    publicKey.export({ type: "spki", format: "der" }),
    der.explicit(
      3,
      der.sequence(
        // digitalSignature, keyEncipherment, keyCertSign
        extension(OID.keyUsage, true, der.bitString(Buffer.from([0xa4]), 2)),
        extension(OID.extendedKeyUsage, false, der.sequence(der.objectIdentifier(OID.serverAuth), der.objectIdentifier(OID.clientAuth))),
        extension(OID.basicConstraints, true, der.sequence(der.boolean(true))),
        extension(OID.subjectAltName, false, der.sequence(der.implicitPrimitive(2, Buffer.from("localhost", "ascii")))),
      ),
    ),
  );
  const signature = sign("sha256", tbs, { key: privateKey, dsaEncoding: "der" });
  const certificate = der.sequence(tbs, algorithm, der.bitString(signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.toString("base64").replace(/.{64}/g, "$&\n").trimEnd()}\n-----END CERTIFICATE-----\n`;
  return { der: certificate, pem, privateKey };
}

