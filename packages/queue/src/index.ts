export * from "./names";
export * from "./messages";
export * from "./redis";
export * from "./connection-log";
