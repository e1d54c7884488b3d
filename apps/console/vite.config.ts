import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const packages = fileURLToPath(new URL("../../packages", import.meta.url));

// The control plane serves the build at /app/; `pnpm dev` proxies the API to a local one (VIGIL_API, default :8080).
const api = process.env.VIGIL_API ?? "http://127.0.0.1:8080";

export default defineConfig({
  base: "/app/",
  plugins: [react()],
  resolve: {
    // The workspace packages from their TypeScript sources, as ES modules: their dist/ is CommonJS, which a
    // bundler cannot tree-shake (the domain rules and the account messages are a small part of each).
    alias: [
      { find: "@vigil/domain/notifications", replacement: `${packages}/domain/src/notification-config.ts` },
      { find: /^@vigil\/(domain|proto)\/(.+)$/, replacement: `${packages}/$1/src/$2.ts` },
    ],
  },
  build: {
    outDir: "dist",
    // Every asset a file of its own, so that the Content-Security-Policy needs no data: sources.
    assetsInlineLimit: 0,
    target: "es2022",
  },
  server: {
    proxy: { "/v1": api, "/account.v1.": api },
  },
});
