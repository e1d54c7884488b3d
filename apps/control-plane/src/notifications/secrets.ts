import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "@vigil/logging";

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1:";

/** The deployment key as ENCRYPTION_KEY and the key file spell it; null when it is not one. */
export function decodeEncryptionKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed, "base64");
  return key.length === KEY_BYTES ? key : null;
}

export const ENCRYPTION_KEY_RULE = `must be ${KEY_BYTES} random bytes in base64 (make one with: openssl rand -base64 ${KEY_BYTES})`;

/**
 * Encrypts channel secrets and second-factor secrets with the deployment key (AES-256-GCM): a sealed
 * value is "v1:" and the base64 of IV, tag and ciphertext. The version lets a
 * later format or key rotation tell old values apart.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`an encryption key is ${KEY_BYTES} bytes, not ${key.length}`);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
  }

  /**
   * A key of its own for another use of the deployment key (signing status
   * page sessions), so that no value made for one use is valid for another.
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.key, Buffer.alloc(0), `vigil ${purpose}`, KEY_BYTES));
  }

  open(sealed: string): string {
    if (!sealed.startsWith(VERSION)) throw new Error("a stored secret (of a channel or a second factor) has an unknown format");
    const bytes = Buffer.from(sealed.slice(VERSION.length), "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new Error("a stored secret (of a channel or a second factor) does not decrypt with this deployment's key: was ENCRYPTION_KEY changed?");
    }
  }
}

export interface SecretKeyOptions {
  /** ENCRYPTION_KEY, decoded; undefined when it is not set. */
  encryptionKey: Buffer | undefined;
  dataDir: string;
  /** Whether other control planes may share the database (DATABASE_URL is set). */
  sharedDatabase: boolean;
}

export const keyFilePath = (dataDir: string) => join(dataDir, "encryption.key");

/**
 * The box for channel secrets: ENCRYPTION_KEY when set, else the key file in
 * DATA_DIR, made on the first start (mode 0600) and reused after. With a
 * shared database, every replica must decrypt what any other wrote, which a
 * key file of one machine cannot promise: that is worth a warning.
 */
export async function loadSecretBox(options: SecretKeyOptions, logger: Logger): Promise<SecretBox> {
  if (options.encryptionKey) return new SecretBox(options.encryptionKey);
  const path = keyFilePath(options.dataDir);
  const key = (await readKeyFile(path)) ?? (await createKeyFile(path, options.dataDir, logger));
  if (options.sharedDatabase) {
    logger.warn(
      { keyFile: path },
      "ENCRYPTION_KEY is not set: channel secrets are encrypted with the key file; every control plane on this database must use the same key, so set ENCRYPTION_KEY (the file's content) on all of them",
    );
  }
  return new SecretBox(key);
}

async function readKeyFile(path: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const key = decodeEncryptionKey(text);
  if (!key) throw new Error(`the encryption key file ${path} ${ENCRYPTION_KEY_RULE}`);
  return key;
}

async function createKeyFile(path: string, dataDir: string, logger: Logger): Promise<Buffer> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  try {
    // "wx": if another process made the file first, its key wins and is read back.
    await writeFile(path, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readKeyFile(path))!;
  }
  logger.info({ keyFile: path }, "created the encryption key for channel secrets; back it up with the database");
  return key;
}
