export * from "./errors";
export * from "./settings";
export * from "./text";
export * from "./types";
export { PROVIDERS, providerOf } from "./registry";
export { testMessage, monitorLink } from "./test-message";
