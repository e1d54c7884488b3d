import { createCertificate } from "./plugin/certificate.js";
import { NOT_STARTED_BY_TERRAFORM, handshakeLine, startedByTerraform } from "./plugin/handshake.js";
import { createPluginLogger, logCalls } from "./plugin/logger.js";
import { listen } from "./plugin/server.js";
import { GRPCController } from "./gen/grpc_controller_pb.js";
import { Provider } from "./gen/tfplugin6_pb.js";
import { PROVIDER_ADDRESS, PROVIDER_VERSION, providerService } from "./provider.js";
import { DATA_SOURCES, RESOURCES } from "./resources/index.js";

async function main(): Promise<void> {
  if (!startedByTerraform(process.env)) {
    process.stderr.write(NOT_STARTED_BY_TERRAFORM);
    process.exit(1);
  }
  const clientCertificate = process.env.PLUGIN_CLIENT_CERT;
  if (!clientCertificate) {
    process.stderr.write("PLUGIN_CLIENT_CERT is not set: this Terraform does not use automatic mutual TLS, which the provider requires.\n");
    process.exit(1);
  }
  const logger = createPluginLogger(process.env);
  // Ctrl-C reaches the whole process group; Terraform answers it with StopProvider, which aborts calls in flight.
  process.on("SIGINT", () => logger.debug("SIGINT ignored: waiting for StopProvider"));

  const certificate = createCertificate();
  const provider = providerService({ resources: RESOURCES, dataSources: DATA_SOURCES, env: process.env, logger });
  const { server, socketPath } = await listen(
    (router) => {
      router.service(Provider, provider);
      router.service(GRPCController, {
        shutdown: () => {
          logger.debug("shutdown");
          // Answer first, then leave: Terraform waits for the reply before it closes the connection.
          setTimeout(() => process.exit(0), 10);
          return {};
        },
      });
    },
    certificate,
    clientCertificate,
    process.env.PLUGIN_UNIX_SOCKET_DIR,
    [logCalls(logger)],
  );
  server.on("error", (error) => logger.error({ error: error.message }, "server error"));
  process.stdout.write(handshakeLine(socketPath, certificate.der));
  logger.debug({ address: PROVIDER_ADDRESS, version: PROVIDER_VERSION, socketPath }, "serving");
}

main().catch((error: unknown) => {
  process.stderr.write(`terraform-provider-service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
