import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./failures.js";

/** What `vigil login` saves: the key, or a person's session token (never a password), and the API it belongs to. */
export interface Profile {
  apiKey?: string;
  session?: string;
  apiUrl?: string;
}

/** $XDG_CONFIG_HOME/vigil/config.json, else ~/.config/vigil/config.json. */
export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "vigil", "config.json");
}

export async function readProfile(path = profilePath()): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const { apiKey, session, apiUrl } = JSON.parse(text) as Profile;
    return { apiKey, session, apiUrl };
  } catch {
    throw new CliError(`the profile ${path} is not valid JSON: run \`vigil login\` again or delete it.`);
  }
}

/** Written readable by its owner only: it holds a secret. */
export async function saveProfile(profile: Profile, path = profilePath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(profile, null, 2) + "\n", { mode: 0o600 });
  // writeFile keeps the mode of a file that already existed.
  await chmod(path, 0o600);
}

/** Whether there was a profile to remove. */
export async function removeProfile(path = profilePath()): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
