import { randomBytes } from "node:crypto";

/** The tests' Redis (a server of their own on port 6391 unless VIGIL_TEST_REDIS_URL names one). */
export { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";

/** A key prefix of its own for one test file, so files never see each other's queues. */
export const testPrefix = () => `vigil-test-${randomBytes(4).toString("hex")}`;
