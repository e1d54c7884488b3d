/**
 * Creates the embedded database in the folder it is given, then exits: run by client.ts in a process of its own
 * before a new folder's first start (it says why).
 */
import { PGlite } from "@electric-sql/pglite";

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error("usage: create.js <data folder>");
void PGlite.create(dataDir).then((db) => db.close());
