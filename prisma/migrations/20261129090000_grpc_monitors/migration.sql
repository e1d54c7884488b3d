-- gRPC health-check monitors: a fifth kind in the same table, checked by the agents as HTTP, TCP and DNS monitors are.
-- Their own columns are null for the other kinds, and existing rows are unchanged. Their metadata is kept in
-- "headers" and their certificate warning setting in "certificate_expiry_days", as for HTTP monitors.
ALTER TYPE "MonitorKind" ADD VALUE 'grpc';

ALTER TABLE "monitors" ADD COLUMN "grpc_service" TEXT;
ALTER TABLE "monitors" ADD COLUMN "grpc_tls" BOOLEAN;
ALTER TABLE "monitors" ADD COLUMN "grpc_expected_status" TEXT;
