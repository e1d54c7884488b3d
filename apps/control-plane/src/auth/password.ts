import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * scrypt's cost, for people's and status pages' passwords: one of OWASP's
 * equivalent settings (N=2^14, r=8, p=5), 16 MiB and about 180 ms of one core
 * per hash on the 2-core benchmark machine, so that a stolen hash is slow to guess from
 * while sign-ins on a small machine do not run it out of memory.
 */
const COST: ScryptOptions = { N: 2 ** 14, r: 8, p: 5, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;

const scrypt = (password: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password.normalize("NFC"), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** A password as stored: `scrypt$N$r$p$<salt>$<hash>` (base64url), its parameters kept so they can grow later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether `password` is the one `stored` was made from (in constant time). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p), maxmem: COST.maxmem });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let nobodys: Promise<string> | undefined;
/** A hash of no one's password: checked when an email is unknown, so that the answer takes as long as for a known one. */
export const nobodysPasswordHash = () => (nobodys ??= hashPassword(randomBytes(16).toString("hex")));
