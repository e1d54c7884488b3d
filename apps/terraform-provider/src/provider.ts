import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { VigilClient } from "@vigil/client";
import type { Logger } from "pino";
import { errorDiagnostic, failureDiagnostics, violationDiagnostics, type Diagnostic } from "./diagnostics.js";
import { Provider, type DynamicValue, type DynamicValueSchema } from "./gen/tfplugin6_pb.js";
import { configureClient, providerSchema, validateProviderConfig } from "./provider-config.js";
import type { CallContext, DataSourceDefinition, ResourceDefinition } from "./resources/index.js";
import { objectType, planChange, schemaMessage, type BlockSpec } from "./schema/index.js";
import { decodeMsgpack, decodeStateJson, encodeMsgpack, isObject, type TfObject, type TfValue } from "./values/index.js";

export const PROVIDER_ADDRESS = "registry.terraform.io/vigil/service";
export const PROVIDER_VERSION = "0.1.0";

type DynamicValueInit = MessageInitShape<typeof DynamicValueSchema>;

const decode = (schema: BlockSpec, value: DynamicValue | undefined): TfObject | null => {
  const decoded = decodeMsgpack(value?.msgpack ?? new Uint8Array(), objectType(schema));
  return decoded !== null && isObject(decoded) ? decoded : null;
};
const encode = (schema: BlockSpec, value: TfValue): DynamicValueInit => ({ msgpack: encodeMsgpack(value, objectType(schema)) });

export interface ProviderOptions {
  resources: ResourceDefinition[];
  dataSources: DataSourceDefinition[];
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/** tfplugin6.Provider: the protocol's side of every resource and data source. */
export function providerService({ resources, dataSources, env, logger }: ProviderOptions): ServiceImpl<typeof Provider> {
  const resourceByName = new Map(resources.map((r) => [r.typeName, r]));
  const dataSourceByName = new Map(dataSources.map((d) => [d.typeName, d]));
  let client: VigilClient | undefined;
  // StopProvider (Ctrl-C in Terraform) aborts every call in flight, and every call after it: Terraform may
  // still send an operation it dispatched just before the interrupt, which would otherwise run to its end.
  const stop = new AbortController();

  const resourceOf = (typeName: string) => {
    const resource = resourceByName.get(typeName);
    if (!resource) throw new Error(`unknown resource type ${typeName}`);
    return resource;
  };
  const dataSourceOf = (typeName: string) => {
    const dataSource = dataSourceByName.get(typeName);
    if (!dataSource) throw new Error(`unknown data source ${typeName}`);
    return dataSource;
  };
  const context = (): CallContext => {
    if (!client) throw new Error("the provider is not configured");
    return { client, signal: stop.signal };
  };
  const validated = (definition: ResourceDefinition | DataSourceDefinition, config: TfObject | null): Diagnostic[] =>
    config && definition.validate ? violationDiagnostics(definition.schema, definition.validate(config), config) : [];
  const failed = (action: string, schema: BlockSpec, error: unknown, config: TfValue) => {
    logger.warn({ action, error: error instanceof Error ? error.message : String(error) }, "call failed");
    return failureDiagnostics(action, schema, error, config);
  };

  // Terraform then keeps the first launch's schema for the whole command instead of asking every launch again.
  const serverCapabilities = { getProviderSchemaOptional: true };

  return {
    getMetadata: () => ({
      serverCapabilities,
      resources: resources.map((r) => ({ typeName: r.typeName })),
      dataSources: dataSources.map((d) => ({ typeName: d.typeName })),
    }),

    getProviderSchema: () => ({
      provider: schemaMessage(providerSchema, "Vigil: monitors, notification channels and status pages."),
      resourceSchemas: Object.fromEntries(resources.map((r) => [r.typeName, schemaMessage(r.schema, r.description)])),
      dataSourceSchemas: Object.fromEntries(dataSources.map((d) => [d.typeName, schemaMessage(d.schema, d.description)])),
      serverCapabilities,
    }),

    validateProviderConfig: (request) => ({ diagnostics: validateProviderConfig(decode(providerSchema, request.config) ?? {}) }),

    validateResourceConfig: (request) => {
      const resource = resourceOf(request.typeName);
      return { diagnostics: validated(resource, decode(resource.schema, request.config)) };
    },

    validateDataResourceConfig: (request) => {
      const dataSource = dataSourceOf(request.typeName);
      return { diagnostics: validated(dataSource, decode(dataSource.schema, request.config)) };
    },

    configureProvider: (request) => {
      const configured = configureClient(decode(providerSchema, request.config) ?? {}, env);
      client = configured.client;
      logger.info({ terraformVersion: request.terraformVersion, configured: client !== undefined }, "configure provider");
      return { diagnostics: configured.diagnostics };
    },

    upgradeResourceState: (request) => {
      const resource = resourceOf(request.typeName);
      const json = request.rawState?.json;
      if (!json || json.length === 0) {
        return { diagnostics: [errorDiagnostic("Unsupported state", "the stored state is in the legacy flatmap format, which this provider never wrote")] };
      }
      return { upgradedState: encode(resource.schema, decodeStateJson(json, objectType(resource.schema))) };
    },

    readResource: async (request) => {
      const resource = resourceOf(request.typeName);
      const current = decode(resource.schema, request.currentState);
      if (!current) return { newState: encode(resource.schema, null) };
      try {
        return { newState: encode(resource.schema, await resource.read(context(), current)), private: request.private };
      } catch (error) {
        return { newState: request.currentState, diagnostics: failed(`read ${request.typeName}`, resource.schema, error, current) };
      }
    },

    planResourceChange: (request) => {
      const resource = resourceOf(request.typeName);
      const proposed = decode(resource.schema, request.proposedNewState);
      const config = decode(resource.schema, request.config);
      if (!proposed || !config) return { plannedState: encode(resource.schema, null) };
      const prior = decode(resource.schema, request.priorState);
      const { planned, requiresReplace } = planChange(resource.schema, proposed, config, prior);
      return {
        plannedState: encode(resource.schema, planned),
        requiresReplace: requiresReplace.map((name) => ({ steps: [{ selector: { case: "attributeName", value: name } }] })),
        plannedPrivate: request.priorPrivate,
      };
    },

    applyResourceChange: async (request) => {
      const resource = resourceOf(request.typeName);
      const prior = decode(resource.schema, request.priorState);
      const planned = decode(resource.schema, request.plannedState);
      const action = planned === null ? "delete" : prior === null ? "create" : "update";
      try {
        const ctx = context();
        let state: TfObject | null = null;
        if (planned === null) await resource.delete(ctx, prior!);
        else if (prior === null) state = await resource.create(ctx, planned);
        else state = await resource.update(ctx, planned, prior);
        logger.info({ action, type: request.typeName, id: state?.id ?? prior?.id }, "applied");
        return { newState: encode(resource.schema, state) };
      } catch (error) {
        // What stood before a failed update or delete still stands; a failed create left nothing.
        return { newState: encode(resource.schema, prior), diagnostics: failed(`${action} ${request.typeName}`, resource.schema, error, planned) };
      }
    },

    importResourceState: async (request) => {
      const resource = resourceOf(request.typeName);
      try {
        const state = await resource.read(context(), resource.importState(request.id));
        if (!state) return { diagnostics: [errorDiagnostic("Cannot import a missing object", `${request.typeName} ${request.id} does not exist`)] };
        return { importedResources: [{ typeName: request.typeName, state: encode(resource.schema, state) }] };
      } catch (error) {
        return { diagnostics: failed(`import ${request.typeName}`, resource.schema, error, null) };
      }
    },

    readDataSource: async (request) => {
      const dataSource = dataSourceOf(request.typeName);
      const config = decode(dataSource.schema, request.config) ?? {};
      try {
        return { state: encode(dataSource.schema, await dataSource.read(context(), config)) };
      } catch (error) {
        return { diagnostics: failed(`read ${request.typeName}`, dataSource.schema, error, config) };
      }
    },

    stopProvider: () => {
      logger.info("stop requested: aborting calls in flight");
      stop.abort(new Error("Terraform asked the provider to stop"));
      return {};
    },
  };
}
