import { API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL } from "@vigil/client";
import type { Profile } from "./profile.js";

export interface GlobalFlags {
  apiKey?: string;
  apiUrl?: string;
}

export interface Settings {
  apiKey: string | undefined;
  /** The saved session of `vigil login --email`, used only when no key is given anywhere. */
  session: string | undefined;
  apiUrl: string;
}

/** Each setting from the first place that has it: flag, environment, saved profile, default. */
export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, profile: Profile): Settings {
  const apiKey = flags.apiKey || env[API_KEY_ENV] || profile.apiKey || undefined;
  return {
    apiKey,
    session: apiKey ? undefined : profile.session || undefined,
    apiUrl: flags.apiUrl || env[BASE_URL_ENV] || profile.apiUrl || DEFAULT_BASE_URL,
  };
}
