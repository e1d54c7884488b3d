import { randomBytes } from "node:crypto";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";

/** The tests' PostgreSQL (the machine's server unless VIGIL_TEST_POSTGRES_URL names one). */
export { databaseUrl, dropDatabase, postgresServerUrl, recreateDatabase } from "@vigil/local-servers/postgres";

/** The database every test database is copied from: migrated once per run, named per run so runs can overlap. */
export function templateDatabase(): string {
  process.env.VIGIL_TEST_TEMPLATE ??= `vigil_test_template_${process.pid}`;
  return process.env.VIGIL_TEST_TEMPLATE;
}

/** A fresh, migrated database for one test file; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `vigil_test_${randomBytes(6).toString("hex")}`;
  const url = await recreateDatabase(name, templateDatabase());
  return { url, drop: () => dropDatabase(name) };
}
