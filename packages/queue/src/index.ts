export * from "./names";
export * from "./messages";
export * from "./slots";
export * from "./redis";
export * from "./dependency-log";
export * from "./closing";
