import { createClient, type VigilClient } from "@vigil/client";
import { isHttpUrl } from "@vigil/domain";
import { errorDiagnostic, type Diagnostic } from "./diagnostics.js";
import { optional, type BlockSpec } from "./schema/index.js";
import { isUnknown, type TfObject } from "./values/index.js";

export const TOKEN_ENV = "SERVICE_API_TOKEN";
export const URL_ENV = "SERVICE_API_URL";

/**
 * The provider block. api_token is required, but Optional in the schema:
 * Terraform would otherwise refuse a configuration that leaves it to SERVICE_API_TOKEN.
 */
export const providerSchema: BlockSpec = {
  attributes: {
    api_token: optional("string", `API key of a Vigil workspace (read and write scope). Default: the ${TOKEN_ENV} environment variable.`, {
      sensitive: true,
    }),
    base_url: optional("string", `Address of the Vigil API. Default: the ${URL_ENV} environment variable, else http://localhost:8080.`),
  },
};

export function validateProviderConfig(config: TfObject): Diagnostic[] {
  const url = config.base_url;
  if (typeof url === "string" && !isHttpUrl(url)) {
    return [errorDiagnostic("Invalid value for base_url", "base_url must be an http:// or https:// URL", [{ attribute: "base_url" }])];
  }
  return [];
}

export type Configured = { client: VigilClient; diagnostics: [] } | { client: undefined; diagnostics: Diagnostic[] };

/** The API client the configuration and the environment describe, or why there is none. */
export function configureClient(config: TfObject, env: NodeJS.ProcessEnv): Configured {
  if (isUnknown(config.api_token) || isUnknown(config.base_url)) {
    const detail = "api_token and base_url must be known when Terraform plans (they cannot come from resources not created yet)";
    return { client: undefined, diagnostics: [errorDiagnostic("Provider configuration not known yet", detail)] };
  }
  const token = typeof config.api_token === "string" && config.api_token !== "" ? config.api_token : env[TOKEN_ENV];
  if (!token) {
    const detail =
      `The provider needs an API key of the Vigil workspace: set api_token in the provider "service" block ` +
      `(for example api_token = var.vigil_api_token), or set the ${TOKEN_ENV} environment variable ` +
      `(export ${TOKEN_ENV}=vgl_...) before running terraform.`;
    return { client: undefined, diagnostics: [errorDiagnostic("Missing api_token", detail, [{ attribute: "api_token" }])] };
  }
  const baseUrl = typeof config.base_url === "string" && config.base_url !== "" ? config.base_url : undefined;
  // The client falls back to SERVICE_API_URL and then its documented default by itself.
  return { client: createClient({ apiKey: token, baseUrl }), diagnostics: [] };
}
