import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { Client } from "pg";

/** The database every test database is copied from: migrated once per run, named per run so runs can overlap. */
export function templateDatabase(): string {
  process.env.VIGIL_TEST_TEMPLATE ??= `vigil_test_template_${process.pid}`;
  return process.env.VIGIL_TEST_TEMPLATE;
}

/** The test PostgreSQL server: VIGIL_TEST_POSTGRES_URL, or the machine's server, started on demand. */
export function postgresServerUrl(): string {
  process.env.VIGIL_TEST_POSTGRES_URL ??= execFileSync("bash", [resolve(__dirname, "../scripts/ensure-postgres.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  return process.env.VIGIL_TEST_POSTGRES_URL;
}

export const databaseUrl = (server: string, name: string) => {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
};

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: postgresServerUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** How often a drop is tried while a background worker is in the database (see dropDatabase). */
const DROP_ATTEMPTS = 20;

export async function dropDatabase(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await onServer((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      return;
    } catch (error) {
      // FORCE terminates the database's sessions, and PostgreSQL refuses (insufficient_privilege) when one of them
      // is of no role of ours, as a background worker's (autovacuum's) is: seen once as a teardown failure. Such a
      // worker is done with a test database in moments.
      if ((error as { code?: string }).code !== "42501" || attempt === DROP_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export async function recreateDatabase(name: string, template?: string): Promise<string> {
  await dropDatabase(name);
  await onServer(async (client) => {
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  });
  return databaseUrl(postgresServerUrl(), name);
}

/** A fresh, migrated database for one test file; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `vigil_test_${randomBytes(6).toString("hex")}`;
  const url = await recreateDatabase(name, templateDatabase());
  return { url, drop: () => dropDatabase(name) };
}
