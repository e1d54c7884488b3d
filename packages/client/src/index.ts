export { createClient, type VigilClient } from "./client.js";
export { SecondFactorRequired, VigilError, type ErrorCode, type FieldViolation } from "./errors.js";
export type { Identity, RevokedApiKey, Scope, SignedIn } from "./http-api.js";
export {
  API_KEY_ENV,
  BASE_URL_ENV,
  DEFAULT_BASE_URL,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type CallOptions,
  type StreamOptions,
  type ClientOptions,
  type Protocol,
  type RetryPolicy,
} from "./options.js";
export type { ServiceClient } from "./services.js";
