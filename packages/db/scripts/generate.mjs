// Runs `prisma generate` offline. The CLI insists on locating a native schema
// engine at start-up even though generate never runs it (and downloading one
// is impossible offline), so point it at a placeholder file.
import { spawnSync } from "node:child_process";
import { writeFileSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const placeholder = join(tmpdir(), "vigil-prisma-schema-engine-placeholder");
if (!existsSync(placeholder)) writeFileSync(placeholder, "");
const root = resolve(import.meta.dirname, "../../..");
mkdirSync(join(root, "packages/db/src/generated"), { recursive: true });
const result = spawnSync(
  process.execPath,
  [join(root, "packages/db/node_modules/prisma/build/index.js"), "generate", "--config", join(root, "packages/db/prisma.config.ts")],
  {
    cwd: join(root, "packages/db"),
    stdio: "inherit",
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder,
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
  },
);
process.exit(result.status ?? 1);
