// The provider's launcher: Terraform starts it several times per command and
// waits for its handshake line each time, so it announces its socket with as
// little as that takes (a certificate, a listening socket), then loads the
// provider itself (provider.cjs, built apart: the TLS server and everything
// behind it) while Terraform connects. The certificate's X.509 library is a
// bundle of its own too (certificate.cjs), so that both load with V8's code cache.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { requireWithCodeCache, writeCodeCache } from "./plugin/code-cache.js";
import { NOT_STARTED_BY_TERRAFORM, handshakeLine, startedByTerraform } from "./plugin/handshake.js";
import { listenPluginSocket } from "./plugin/socket.js";
import type * as CertificateModule from "./plugin/certificate.js";
import type * as PluginHandlerModule from "./plugin-handler.js";

const DIST = dirname(realpathSync(process.argv[1]!));
const CERTIFICATE_BUNDLE = join(DIST, "certificate.cjs");
const PROVIDER_BUNDLE = join(DIST, "provider.cjs");
/** The build's own use of the launcher: `terraform-provider-service --write-code-cache`. */
const WRITE_CODE_CACHE = "--write-code-cache";

async function main(): Promise<void> {
  if (process.argv[2] === WRITE_CODE_CACHE) {
    const certificate = await writeCodeCache(CERTIFICATE_BUNDLE, (loaded) => (loaded as typeof CertificateModule).createCertificate());
    await writeCodeCache(PROVIDER_BUNDLE, (loaded) => (loaded as typeof PluginHandlerModule).warmUp(certificate));
    return;
  }
  if (!startedByTerraform(process.env)) {
    process.stderr.write(NOT_STARTED_BY_TERRAFORM);
    process.exit(1);
  }
  const clientCertificate = process.env.PLUGIN_CLIENT_CERT;
  if (!clientCertificate) {
    process.stderr.write("PLUGIN_CLIENT_CERT is not set: this Terraform does not use automatic mutual TLS, which the provider requires.\n");
    process.exit(1);
  }
  // Ctrl-C reaches the whole process group; Terraform answers it with StopProvider, which aborts calls in flight.
  process.on("SIGINT", () => undefined);

  const { createCertificate } = requireWithCodeCache(CERTIFICATE_BUNDLE) as typeof CertificateModule;
  const certificate = await createCertificate();
  const socket = await listenPluginSocket(process.env.PLUGIN_UNIX_SOCKET_DIR);
  process.stdout.write(handshakeLine(socket.path, certificate.der));
  const { createProviderServer } = requireWithCodeCache(PROVIDER_BUNDLE) as typeof PluginHandlerModule;
  const server = createProviderServer(certificate, clientCertificate, process.env);
  server.on("error", (error) => process.stderr.write(`terraform-provider-service: server error: ${error.message}\n`));
  socket.handTo(server);
}

main().catch((error: unknown) => {
  process.stderr.write(`terraform-provider-service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
