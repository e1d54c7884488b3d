export { DEFAULT_POOL_SIZE, openDatabase, describeTarget, type Database, type DatabaseTarget } from "./database";
export { applyMigrations, applyMigrationsApart } from "./migrate";
export { driverRows, type DriverRows } from "./driver-rows";
export { Prisma, PrismaClient } from "./generated/prisma/client";
export type {
  Monitor as MonitorRow,
  ApiKey as ApiKeyRow,
  Workspace as WorkspaceRow,
  AuditEntry as AuditEntryRow,
  User as UserRow,
  Membership as MembershipRow,
  UserSession as UserSessionRow,
  Invitation as InvitationRow,
  SsoSettings as SsoSettingsRow,
  MonitorKind,
} from "./generated/prisma/client";
