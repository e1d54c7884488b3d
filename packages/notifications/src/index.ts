export * from "./errors";
export * from "./settings";
export * from "./text";
export * from "./types";
export { PROVIDERS, providerOf } from "./registry";
export { testMessage, monitorLink } from "./test-message";
export { newSigningSecret } from "./providers/webhook";
export { closeEmailTransports, transportFor as emailTransport } from "./providers/email";
export { closeProviderConnections } from "./connections";
