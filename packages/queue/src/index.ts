export * from "./names";
export * from "./messages";
export * from "./redis";
