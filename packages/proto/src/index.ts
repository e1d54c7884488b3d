export * from "./gen/monitor/v1/assertions_pb";
export * from "./gen/monitor/v1/monitor_pb";
export * from "./gen/monitor/v1/region_pb";
export * from "./gen/monitor/v1/service_pb";
export * from "./gen/monitor/v1/incident_pb";
export * from "./gen/monitor/v1/maintenance_pb";
export * from "./gen/monitor/v1/slo_pb";
export * from "./gen/monitor/v1/report_pb";
