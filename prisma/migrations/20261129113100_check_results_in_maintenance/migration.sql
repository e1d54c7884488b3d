-- A check that ran during a maintenance window of its monitor: stored, marked, and counted in no aggregate.
-- A constant default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE "check_results" ADD COLUMN "in_maintenance" BOOLEAN NOT NULL DEFAULT false;
