// The status page rules as the console imports them (`@vigil/domain/status-pages`), without the package root and its Node modules.
export * from "./status-page-config";
export * from "./status-page-fields";
export * from "./status-page-incidents";
export * from "./markdown";
export * from "./status-page-subscribers";
