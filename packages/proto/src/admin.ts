export * from "./gen/vigil/admin/v1/admin_pb";
