-- Hand-written: every committed change to a monitor row is now announced
-- whether or not the writing session listens. On a PostgreSQL server each
-- control plane listens on a connection of its own (packages/db/src/
-- server-monitor-changes.ts), never on the pooled connections that write, so
-- the writer's own pg_listening_channels() told nothing about who hears.
-- Only transactions that change monitor rows announce (the API's writes, a
-- status change, a workspace's cascade), which are few beside the results
-- that ingest writes, so the notification queue's commit lock stays off the
-- hot write path.
-- As in monitor_change_notices, the body is an escape string that writes each
-- semicolon as \x3b, since the migration runner splits a script at every one.
CREATE OR REPLACE FUNCTION "announce_monitor_change"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  changed "monitors"\x3b
BEGIN
  IF TG_OP = ''DELETE'' THEN changed := OLD\x3b ELSE changed := NEW\x3b END IF\x3b
  PERFORM pg_notify(''monitor_changes'', left(TG_OP, 1) || '' '' || changed."workspace_id" || '' '' || changed."id")\x3b
  RETURN NULL\x3b
END';

CREATE OR REPLACE FUNCTION "announce_all_monitors_changed"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''monitor_changes'', '''')\x3b
  RETURN NULL\x3b
END';
