export { DEFAULT_POOL_SIZE, openDatabase, describeTarget, type Database, type DatabaseTarget } from "./database";
export { applyMigrations } from "./migrate";
export { driverRows, type DriverRows } from "./driver-rows";
export { monitorChanges, registerMonitorChanges, type MonitorChange, type MonitorChanges } from "./monitor-changes";
export { Prisma, PrismaClient } from "./generated/prisma/client";
export type { Monitor as MonitorRow, ApiKey as ApiKeyRow, Workspace as WorkspaceRow, AuditEntry as AuditEntryRow, MonitorKind } from "./generated/prisma/client";
