export * from "./types";
export * from "./http";
export * from "./tcp";
export * from "./dns";
export * from "./grpc";
export * from "./run";
export * from "./warm-up";
