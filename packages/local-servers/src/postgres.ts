import { Client } from "pg";
import { ensureServer } from "./scripts";

/** VIGIL_TEST_POSTGRES_URL, or the machine's PostgreSQL server, started on demand. */
export function postgresServerUrl(): string {
  process.env.VIGIL_TEST_POSTGRES_URL ??= ensureServer("ensure-postgres.sh");
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

/** An empty database `name` (a copy of `template` if given), dropped first if it exists; returns its URL. */
export async function recreateDatabase(name: string, template?: string): Promise<string> {
  await dropDatabase(name);
  await onServer(async (client) => {
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  });
  return databaseUrl(postgresServerUrl(), name);
}
