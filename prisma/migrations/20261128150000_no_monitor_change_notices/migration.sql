-- Hand-written: monitors are no longer announced on the "monitor_changes"
-- channel. The API reads each monitor from the table on every call, so nobody
-- listens, and the triggers only added a notification to every transaction
-- that changed a monitor.
DROP TRIGGER IF EXISTS "monitors_announce_change" ON "monitors";
DROP TRIGGER IF EXISTS "monitors_announce_truncate" ON "monitors";
DROP FUNCTION IF EXISTS "announce_monitor_change"();
DROP FUNCTION IF EXISTS "announce_all_monitors_changed"();
