export * from "./names";
export * from "./messages";
export * from "./slots";
export * from "./redis";
export * from "./connection-log";
export * from "./closing";
