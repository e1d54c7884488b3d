-- Pings numbered per monitor (under its row lock), so that keeping the newest 100 deletes by a bound on an index:
-- one index probe and the one row that falls out per ping, instead of reading every kept ping to find it.
ALTER TABLE "monitors" ADD COLUMN "ping_seq" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "heartbeat_pings" ADD COLUMN "seq" BIGINT;

UPDATE "heartbeat_pings" AS p SET "seq" = n."seq"
FROM (SELECT "id", row_number() OVER (PARTITION BY "monitor_id" ORDER BY "received_at", "id") AS "seq" FROM "heartbeat_pings") AS n
WHERE p."id" = n."id";
UPDATE "monitors" AS m SET "ping_seq" = s."seq"
FROM (SELECT "monitor_id", max("seq") AS "seq" FROM "heartbeat_pings" GROUP BY "monitor_id") AS s
WHERE m."id" = s."monitor_id";

ALTER TABLE "heartbeat_pings" ALTER COLUMN "seq" SET NOT NULL;
CREATE INDEX "heartbeat_pings_monitor_id_seq_idx" ON "heartbeat_pings"("monitor_id", "seq");
