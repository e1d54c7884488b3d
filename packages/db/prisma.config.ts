import { defineConfig } from "prisma/config";

// Only `prisma generate` uses the CLI; migrations run through
// @vigil/db's offline engine (see packages/db/src/migrate.ts).
export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
});
