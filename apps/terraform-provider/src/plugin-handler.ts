// Everything the provider does once Terraform talks to it, bundled apart from the launcher
// (main.ts) so that the handshake does not wait for it: see build.mjs.
import { create, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { GRPCController } from "./gen/grpc_controller_pb.js";
import { GetProviderSchema_RequestSchema, GetProviderSchema_ResponseSchema, Provider } from "./gen/tfplugin6_pb.js";
import { createPluginLogger, logCalls } from "./plugin/logger.js";
import type { Certificate } from "./plugin/certificate.js";
import { createPluginServer, type PluginHandler } from "./plugin/server.js";
import type { Logger } from "pino";
import { PROVIDER_ADDRESS, PROVIDER_VERSION, providerService } from "./provider.js";
import { DATA_SOURCES, RESOURCES } from "./resources/index.js";

const providerOf = (env: NodeJS.ProcessEnv, logger: Logger) => providerService({ resources: RESOURCES, dataSources: DATA_SOURCES, env, logger });

/** The provider's TLS server, to which the launcher hands Terraform's connections. */
export const createProviderServer = (certificate: Certificate, clientCertificatePem: string, env: NodeJS.ProcessEnv) =>
  createPluginServer(certificate, clientCertificatePem, createPluginHandler(env));

/** The gRPC handler of tfplugin6.Provider and go-plugin's controller. */
function createPluginHandler(env: NodeJS.ProcessEnv): PluginHandler {
  const logger = createPluginLogger(env);
  logger.debug({ address: PROVIDER_ADDRESS, version: PROVIDER_VERSION }, "serving");
  const provider = providerOf(env, logger);
  return connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    interceptors: [logCalls(logger)],
    routes: (router) => {
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
  });
}

/**
 * What every launch runs before its first answer, run by the build so that the
 * code cache holds it compiled: the TLS server, the handler and the schema
 * Terraform asks first. The certificate is the launcher's: the X.509 library
 * stays out of this bundle.
 */
export function warmUp(certificate: Certificate): void {
  const quiet = { TF_LOG_PROVIDER: "off" };
  createProviderServer(certificate, certificate.pem, quiet);
  const schema = providerOf(quiet, createPluginLogger(quiet)).getProviderSchema(create(GetProviderSchema_RequestSchema), undefined as never);
  toBinary(GetProviderSchema_ResponseSchema, create(GetProviderSchema_ResponseSchema, schema as never));
}
