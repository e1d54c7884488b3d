import { removePgliteImage } from "./pglite-image";
import { dropDatabase, templateDatabase } from "./postgres";

export default async function globalTeardown(): Promise<void> {
  removePgliteImage();
  await dropDatabase(templateDatabase());
}
