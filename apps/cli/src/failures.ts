import { VigilError } from "@vigil/client";

/** A failure the CLI itself found (bad input file, no key), with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

/** The exit codes, as documented in README.md and `vigil --help`. */
export const EXIT = { ok: 0, error: 1, usage: 2 } as const;

const KEY_HINT = "pass --api-key, set SERVICE_API_KEY or run `vigil login`";

/** What went wrong and what to do about it, for stderr. */
export function describeFailure(error: unknown, apiUrl: string): string {
  if (error instanceof CliError) return error.message;
  if (!(error instanceof VigilError)) return error instanceof Error ? error.message : String(error);
  switch (error.code) {
    case "not_found":
      return `not found: ${error.message}. Check the id (the list command shows them).`;
    case "unauthenticated":
      return `the API key was refused by ${apiUrl} (${error.message}): ${KEY_HINT} with a valid key.`;
    case "permission_denied":
      // The API says what the call needs; a key without the write scope is told how to get one.
      return /with the write scope/.test(error.message)
        ? `${error.message}: this command changes data and needs a write key; use a key with the write scope.`
        : `permission denied: ${error.message}.`;
    case "invalid_argument":
      return error.violations.length
        ? ["the request was rejected:", ...error.violations.map(({ field, rule }) => `  ${field}: ${rule}`)].join("\n")
        : `the request was rejected: ${error.message}`;
    case "unavailable":
      return `cannot reach the API at ${apiUrl} (${error.message.replace(/^cannot reach \S+: /, "")}): is it running there? Set --api-url or SERVICE_API_URL.`;
    case "deadline_exceeded":
      return `${error.message}; the API at ${apiUrl} is slow or unreachable, try again.`;
    default:
      return `${error.code}: ${error.message}`;
  }
}

export const missingKey = () => new CliError(`no API key: ${KEY_HINT}.`);
