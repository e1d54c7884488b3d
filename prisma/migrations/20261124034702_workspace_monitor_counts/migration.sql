-- CreateTable
CREATE TABLE "workspace_monitor_counts" (
    "workspace_id" TEXT NOT NULL,
    "monitors" INTEGER NOT NULL,

    CONSTRAINT "workspace_monitor_counts_pkey" PRIMARY KEY ("workspace_id")
);

-- AddForeignKey
ALTER TABLE "workspace_monitor_counts" ADD CONSTRAINT "workspace_monitor_counts_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the count is kept by statement-level triggers on monitors, so
-- that every path that inserts or deletes monitors (the API, monitoring-as-code,
-- the workspace's cascade, plain SQL) keeps it exact in its own transaction.
-- The counter row's lock orders concurrent writers of one workspace, and
-- `monitors + n` is evaluated on the latest committed count.
-- The migration runner (the driver adapters' executeScript) splits a script at
-- every semicolon, even inside quotes, so the functions' bodies are escape
-- strings that write each one as \x3b.
CREATE FUNCTION "count_inserted_monitors"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO "workspace_monitor_counts" ("workspace_id", "monitors")
  SELECT "workspace_id", count(*) FROM "inserted_monitors" GROUP BY "workspace_id" ORDER BY "workspace_id"
  ON CONFLICT ("workspace_id") DO UPDATE SET "monitors" = "workspace_monitor_counts"."monitors" + excluded."monitors"\x3b
  RETURN NULL\x3b
END';

CREATE FUNCTION "count_deleted_monitors"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE "workspace_monitor_counts" AS c SET "monitors" = c."monitors" - d."monitors"
  FROM (SELECT "workspace_id", count(*) AS "monitors" FROM "deleted_monitors" GROUP BY "workspace_id") AS d
  WHERE c."workspace_id" = d."workspace_id"\x3b
  RETURN NULL\x3b
END';

CREATE FUNCTION "count_no_monitors"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  DELETE FROM "workspace_monitor_counts"\x3b
  RETURN NULL\x3b
END';

CREATE TRIGGER "monitors_count_inserted" AFTER INSERT ON "monitors"
  REFERENCING NEW TABLE AS "inserted_monitors" FOR EACH STATEMENT EXECUTE FUNCTION "count_inserted_monitors"();
CREATE TRIGGER "monitors_count_deleted" AFTER DELETE ON "monitors"
  REFERENCING OLD TABLE AS "deleted_monitors" FOR EACH STATEMENT EXECUTE FUNCTION "count_deleted_monitors"();
CREATE TRIGGER "monitors_count_truncated" AFTER TRUNCATE ON "monitors"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_no_monitors"();

-- A monitor never moves to another workspace (no API changes workspace_id):
-- refuse it rather than let the counts drift.
CREATE FUNCTION "refuse_monitor_move"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  RAISE EXCEPTION ''a monitor cannot move to another workspace''\x3b
END';
CREATE TRIGGER "monitors_stay_in_workspace" BEFORE UPDATE OF "workspace_id" ON "monitors"
  FOR EACH ROW WHEN (OLD."workspace_id" IS DISTINCT FROM NEW."workspace_id") EXECUTE FUNCTION "refuse_monitor_move"();

-- The monitors that exist when the migration runs.
INSERT INTO "workspace_monitor_counts" ("workspace_id", "monitors")
SELECT "workspace_id", count(*) FROM "monitors" GROUP BY "workspace_id";
