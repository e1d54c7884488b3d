export { deletePrefix, redisServerUrl } from "./redis";
export { databaseUrl, dropDatabase, postgresServerUrl, recreateDatabase } from "./postgres";
export { launchBrowser } from "./chromium";
