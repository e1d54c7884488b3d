/** The value go-plugin's client passes so that a plugin binary run by hand can tell it was not started by Terraform. */
export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

const CORE_PROTOCOL_VERSION = 1;
const APP_PROTOCOL_VERSION = 6;

export const startedByTerraform = (env: NodeJS.ProcessEnv) => env[MAGIC_COOKIE_KEY] === MAGIC_COOKIE_VALUE;

export const NOT_STARTED_BY_TERRAFORM =
  "This program is a plugin for Terraform, which starts it by itself: it is not meant to be run directly.\n" +
  'Use it from a Terraform configuration with required_providers { service = { source = "vigil/service" } }.\n';

/** The one line go-plugin reads from the plugin's stdout: where to connect, how, and the server certificate. */
export function handshakeLine(socketPath: string, certificateDer: Buffer): string {
  const certificate = certificateDer.toString("base64").replace(/=+$/, "");
  return `${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|unix|${socketPath}|grpc|${certificate}\n`;
}
