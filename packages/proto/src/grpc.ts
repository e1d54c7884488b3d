export * from "./gen/grpc/health/v1/health_pb";
// Namespaced because v1 and v1alpha export identically named symbols.
export * as reflectionV1 from "./gen/grpc/reflection/v1/reflection_pb";
export * as reflectionV1alpha from "./gen/grpc/reflection/v1alpha/reflection_pb";
