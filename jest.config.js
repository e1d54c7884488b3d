/** One Jest run for the whole workspace: TypeScript through SWC, workspace packages from source. */
const swcWith = (parser, transform) => [
  "@swc/jest",
  {
    jsc: { target: "es2022", parser: { syntax: "typescript", ...parser }, ...(transform && { transform }) },
    // Keep import() as is: Prisma's client and the schema engine load ES modules that way.
    module: { type: "commonjs", ignoreDynamic: true },
  },
];
const swc = swcWith();
// HTML is written as JSX (.tsx) and rendered by React on the server, as tsconfig's "jsx": "react-jsx" compiles it.
const swcTsx = swcWith({ tsx: true }, { react: { runtime: "automatic" } });

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // p-retry, its is-network-error and p-timeout ship as ES modules only, which Jest's CommonJS runtime cannot require
  // before Node 24.9: SWC compiles them like our own sources.
  transform: { "^.+\\.ts$": swc, "^.+\\.tsx$": swcTsx, "/node_modules/.+\\.js$": swc },
  transformIgnorePatterns: ["/node_modules/(?!(\\.pnpm/)?(p-retry|is-network-error|p-timeout)[@/])"],
  moduleNameMapper: {
    // Generated code imports its TypeScript siblings as .js.
    "^(\\.{1,2}/.*)\\.js$": "$1",
    "^@vigil/([^/]+)$": "<rootDir>/packages/$1/src/index.ts",
    "^@vigil/([^/]+)/(.+)$": "<rootDir>/packages/$1/src/$2.ts",
  },
  testMatch: ["<rootDir>/{apps,packages}/*/test/**/*.test.ts"],
  globalSetup: "<rootDir>/test/global-setup.ts",
  globalTeardown: "<rootDir>/test/global-teardown.ts",
  // Generous: machines here are shared, and a slow start-up is not a failure.
  testTimeout: 120_000,
  maxWorkers: 2,
  // Each test file runs in a vm context of its own, and with --experimental-vm-modules Node 20 never frees
  // one (jestjs/jest#14605, nodejs/node#50113): a worker kept 40-80 MB per file and neared V8's heap limit
  // (4 GB here) two-thirds into the suite, where collections slowed every file. A worker past this after
  // a file is replaced by a fresh one.
  workerIdleMemoryLimit: "1GB",
  // The workers end within milliseconds of Jest's request (measured with a probe in each worker),
  // but Jest's own process, busy for a moment at the end of a long run on two shared cores, can see
  // their exit after its 500 ms default has fired and then reports them as force-exited. A worker
  // really held open by a leak is still killed, and reported, after this.
  workerGracefulExitTimeout: 5_000,
};
