#!/usr/bin/env node
import { CommanderError } from "commander";
import { CliError, EXIT } from "./failures.js";
import { createProgram } from "./program.js";

// `vigil … | head` closes the pipe early; that ends the command, it is no failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed the problem; anything but help and --version is a usage error.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    process.stderr.write(`vigil: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : EXIT.error;
  }
}
