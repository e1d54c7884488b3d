import type { DataSourceDefinition, ResourceDefinition } from "./definition.js";
import { tcpMonitor } from "./tcp-monitor.js";

export const RESOURCES: ResourceDefinition[] = [tcpMonitor];
export const DATA_SOURCES: DataSourceDefinition[] = [];

export type { CallContext, DataSourceDefinition, ResourceDefinition } from "./definition.js";
