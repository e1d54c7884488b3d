// Its own entry point: notification.v1 has message names (Header) that monitor.v1 also uses.
export * from "./gen/notification/v1/notification_pb";
export * from "./gen/notification/v1/service_pb";
