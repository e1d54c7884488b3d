import { monitorDataSource } from "../data-sources/monitor.js";
import { monitorsDataSource } from "../data-sources/monitors.js";
import { notificationDataSource } from "../data-sources/notification.js";
import { statusPageDataSource } from "../data-sources/status-page.js";
import type { DataSourceDefinition, ResourceDefinition } from "./definition.js";
import { dnsMonitor } from "./dns-monitor.js";
import { grpcMonitor } from "./grpc-monitor.js";
import { heartbeatMonitor } from "./heartbeat-monitor.js";
import { httpMonitor } from "./http-monitor.js";
import { maintenanceWindow } from "./maintenance-window.js";
import { notificationResource } from "./notification.js";
import { statusPageComponentGroup } from "./status-page-component-group.js";
import { statusPageComponent } from "./status-page-component.js";
import { statusPage } from "./status-page.js";
import { tcpMonitor } from "./tcp-monitor.js";

export const RESOURCES: ResourceDefinition[] = [httpMonitor, tcpMonitor, dnsMonitor, grpcMonitor, heartbeatMonitor, notificationResource, statusPage, statusPageComponent, statusPageComponentGroup, maintenanceWindow];
export const DATA_SOURCES: DataSourceDefinition[] = [monitorDataSource, monitorsDataSource, notificationDataSource, statusPageDataSource];

export type { CallContext, DataSourceDefinition, ResourceDefinition } from "./definition.js";
