import { monitorToMessage, type MonitorKind, type MonitorMessageByKind, type MonitorRecord } from "@vigil/domain";

const messages = new WeakMap<MonitorRecord, MonitorMessageByKind[MonitorKind]>();

/**
 * The API message of a record, made once per record object: the repository
 * hands out the same record while its row is unchanged (records-by-version.ts),
 * so a page read again is not mapped again. Nothing changes a message after
 * it is made, so answers may share it.
 */
export function messageOf<K extends MonitorKind>(record: MonitorRecord<K>): MonitorMessageByKind[K] {
  let message = messages.get(record);
  if (!message) messages.set(record, (message = monitorToMessage(record)));
  return message as MonitorMessageByKind[K];
}
