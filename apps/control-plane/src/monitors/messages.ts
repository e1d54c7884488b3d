import { monitorToMessage, type MonitorKind, type MonitorMessageByKind, type MonitorRecord } from "@vigil/domain";
import { MadeOnce } from "./made-once";
import { MAX_KEPT_RECORDS } from "./records-by-version";

const messages = new MadeOnce<MonitorRecord, MonitorMessageByKind[MonitorKind]>(monitorToMessage, MAX_KEPT_RECORDS);

/**
 * The API message of a record, made once per record object: the repository
 * hands out the same record while its row is unchanged (records-by-version.ts),
 * so a page read again is not mapped again. Nothing changes a message after
 * it is made, so answers may share it.
 */
export function messageOf<K extends MonitorKind>(record: MonitorRecord<K>): MonitorMessageByKind[K] {
  return messages.of(record) as MonitorMessageByKind[K];
}
