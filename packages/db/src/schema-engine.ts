import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";

type Bindings = typeof import("@prisma/schema-engine-wasm");
type WasmExports = Record<string, unknown>;
// The global exists in Node; this package compiles without the DOM typings that declare it.
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: WasmExports } }>;
};

let bindings: Promise<Bindings> | undefined;

/**
 * The engine arms timers (timeouts of its own) that outlive a migration; left
 * as they are, they keep a finished command or test process alive.
 */
function withUnrefTimers(glue: Record<string, unknown>): Record<string, unknown> {
  const imports = { ...glue };
  for (const [name, value] of Object.entries(glue)) {
    if (name.startsWith("__wbg_setTimeout") && typeof value === "function") {
      imports[name] = (...args: unknown[]) => {
        const timer = value(...args) as { unref?: () => void };
        timer.unref?.();
        return timer;
      };
    }
  }
  return imports;
}

/**
 * Loads Prisma's schema engine compiled to WebAssembly. The package's entry
 * imports the .wasm file as an ES module, which Node 20 only allows behind a
 * flag, so the module is instantiated here from its JS glue instead.
 */
function loadBindings(): Promise<Bindings> {
  bindings ??= (async () => {
    const glue = (await import("@prisma/schema-engine-wasm/schema_engine_bg")) as unknown as Bindings & {
      __wbg_set_wasm(exports: WasmExports): void;
    };
    const wasmFile = join(dirname(require.resolve("@prisma/schema-engine-wasm")), "schema_engine_bg.wasm");
    const { instance } = await WebAssembly.instantiate(readFileSync(wasmFile), {
      "./schema_engine_bg.js": withUnrefTimers(glue as unknown as Record<string, unknown>),
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return bindings;
}

/** Opens the schema engine on a database reached through a Prisma driver adapter. */
export async function openSchemaEngine(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  schema: { path: string; content: string },
  log: (message: string) => void = () => {},
): Promise<SchemaEngine> {
  const { SchemaEngine } = await loadBindings();
  return SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, log, bindMigrationAwareSqlAdapterFactory(adapter));
}
