// Its own entry point, like notification.v1: status_page.v1 is a package of its own.
export * from "./gen/status_page/v1/status_page_pb";
export * from "./gen/status_page/v1/incident_pb";
export * from "./gen/status_page/v1/service_pb";
export * from "./gen/status_page/v1/report_pb";
export * from "./gen/status_page/v1/subscriber_pb";
