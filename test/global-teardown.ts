import { dropDatabase, templateDatabase } from "./postgres";

export default async function globalTeardown(): Promise<void> {
  await dropDatabase(templateDatabase());
}
