import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { SecretBox, keyFilePath, loadSecretBox } from "../src/notifications/secrets";
import { recordingLogger } from "../../../test/recording-logger";

describe("SecretBox", () => {
  const box = new SecretBox(randomBytes(32));

  it("seals as v1: and base64, differently each time, and opens what it sealed", () => {
    const first = box.seal('{"token":"tk_secret"}');
    const second = box.seal('{"token":"tk_secret"}');
    expect(first).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(first).not.toContain("tk_secret");
    expect(second).not.toBe(first);
    expect(box.open(first)).toBe('{"token":"tk_secret"}');
    expect(box.open(box.seal(""))).toBe("");
  });

  it("refuses a value sealed with another key, a tampered value, and an unknown format", () => {
    const sealed = box.seal("secret");
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow("does not decrypt with this deployment's key");
    const bytes = Buffer.from(sealed.slice(3), "base64");
    bytes[bytes.length - 1]! ^= 1;
    expect(() => box.open(`v1:${bytes.toString("base64")}`)).toThrow("does not decrypt");
    expect(() => box.open("secret")).toThrow("unknown format");
  });

  it("takes only 32-byte keys", () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow("32 bytes");
  });
});

describe("the deployment key", () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), "vigil-secrets-")), "data");
  });
  afterEach(() => rm(join(dataDir, ".."), { recursive: true, force: true }));

  it("is ENCRYPTION_KEY when set, and then no key file is made", async () => {
    const key = randomBytes(32);
    const { logger, lines } = recordingLogger();
    const box = await loadSecretBox({ encryptionKey: key, dataDir, sharedDatabase: true }, logger);
    expect(new SecretBox(key).open(box.seal("x"))).toBe("x");
    await expect(stat(keyFilePath(dataDir))).rejects.toThrow("ENOENT");
    expect(lines).toEqual([]);
  });

  it("is made on the first start in DATA_DIR/encryption.key, readable by the service's user only, and reused after", async () => {
    const { logger, lines } = recordingLogger();
    const first = await loadSecretBox({ encryptionKey: undefined, dataDir, sharedDatabase: false }, logger);
    const file = await stat(keyFilePath(dataDir));
    expect(file.mode & 0o777).toBe(0o600);
    const stored = (await readFile(keyFilePath(dataDir), "utf8")).trim();
    expect(Buffer.from(stored, "base64")).toHaveLength(32);
    expect(lines.map((l) => [l.level, l.message])).toEqual([["info", expect.stringContaining("created the encryption key")]]);

    const sealed = first.seal("kept across restarts");
    const again = await loadSecretBox({ encryptionKey: undefined, dataDir, sharedDatabase: false }, logger);
    expect(again.open(sealed)).toBe("kept across restarts");
    expect(new SecretBox(Buffer.from(stored, "base64")).open(sealed)).toBe("kept across restarts");
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain(stored);
  });

  it("warns, without the key, that replicas on a shared database need ENCRYPTION_KEY", async () => {
    const { logger, lines } = recordingLogger();
    await loadSecretBox({ encryptionKey: undefined, dataDir, sharedDatabase: true }, logger);
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain("every control plane on this database must use the same key, so set ENCRYPTION_KEY");
    expect(JSON.stringify(lines)).not.toContain((await readFile(keyFilePath(dataDir), "utf8")).trim());
  });

  it("refuses a key file that holds no key, naming the file", async () => {
    await loadSecretBox({ encryptionKey: undefined, dataDir, sharedDatabase: false }, recordingLogger().logger);
    await writeFile(keyFilePath(dataDir), "not a key\n");
    await expect(loadSecretBox({ encryptionKey: undefined, dataDir, sharedDatabase: false }, recordingLogger().logger)).rejects.toThrow(
      `the encryption key file ${keyFilePath(dataDir)} must be 32 random bytes in base64`,
    );
  });
});

describe("configuration of notifications", () => {
  it("reads ENCRYPTION_KEY as 32 bytes of base64, and stops with a clear error otherwise", () => {
    const key = randomBytes(32);
    expect(loadConfig({ ENCRYPTION_KEY: key.toString("base64") }).encryptionKey).toEqual(key);
    expect(loadConfig({}).encryptionKey).toBeUndefined();
    expect(loadConfig({ ENCRYPTION_KEY: "" }).encryptionKey).toBeUndefined();
    for (const bad of [randomBytes(31).toString("base64"), randomBytes(33).toString("base64"), "not base64!", key.toString("hex")]) {
      let message = "";
      try {
        loadConfig({ ENCRYPTION_KEY: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe("invalid environment: ENCRYPTION_KEY: must be 32 random bytes in base64 (make one with: openssl rand -base64 32)");
    }
  });

  it("reads the providers' settings, with links to the API's own port when PUBLIC_URL is unset", () => {
    const config = loadConfig({ PORT: "9090", TELEGRAM_BOT_TOKEN: "123:abc", SMTP_URL: "smtp://mail.example.com:587" });
    expect(config.providerSettings).toMatchObject({ publicUrl: "http://localhost:9090", telegramBotToken: "123:abc", smtpUrl: "smtp://mail.example.com:587" });
    expect(loadConfig({ PUBLIC_URL: "https://vigil.example.com/" }).providerSettings.publicUrl).toBe("https://vigil.example.com");
    expect(() => loadConfig({ SMTP_URL: "mail.example.com" })).toThrow("invalid environment: SMTP_URL");
  });
});
