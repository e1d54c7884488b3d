-- Hand-written: every committed change to a monitor row is announced on the
-- channel "monitor_changes" to the sessions that listen there. The payload is
-- "<I|U|D> <workspace id> <monitor id>" (inserted, updated, deleted), or empty
-- after TRUNCATE, meaning every monitor.
-- Embedded PGlite is one session serving the whole process: it listens, so the
-- control plane can keep the monitors and pages it has read and trust them
-- until told otherwise, without a statement per read
-- (packages/db/src/monitor-changes.ts).
-- Only a session that listens itself announces: on a PostgreSQL server no pooled
-- connection listens, and NOTIFY would serialise every committing writer on
-- the server's notification queue lock for nobody.
-- Row triggers, so that every path (the API, the status writer's plain SQL, a
-- workspace's cascade) announces in its own transaction, which PostgreSQL
-- delivers at commit and never after a rollback.
-- The migration runner splits a script at every semicolon, even inside quotes,
-- so the functions' bodies are escape strings that write each one as \x3b.
CREATE FUNCTION "announce_monitor_change"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  changed "monitors"\x3b
BEGIN
  IF ''monitor_changes'' IN (SELECT pg_listening_channels()) THEN
    IF TG_OP = ''DELETE'' THEN changed := OLD\x3b ELSE changed := NEW\x3b END IF\x3b
    PERFORM pg_notify(''monitor_changes'', left(TG_OP, 1) || '' '' || changed."workspace_id" || '' '' || changed."id")\x3b
  END IF\x3b
  RETURN NULL\x3b
END';

CREATE FUNCTION "announce_all_monitors_changed"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF ''monitor_changes'' IN (SELECT pg_listening_channels()) THEN
    PERFORM pg_notify(''monitor_changes'', '''')\x3b
  END IF\x3b
  RETURN NULL\x3b
END';

CREATE TRIGGER "monitors_announce_change" AFTER INSERT OR UPDATE OR DELETE ON "monitors"
  FOR EACH ROW EXECUTE FUNCTION "announce_monitor_change"();
CREATE TRIGGER "monitors_announce_truncate" AFTER TRUNCATE ON "monitors"
  FOR EACH STATEMENT EXECUTE FUNCTION "announce_all_monitors_changed"();
