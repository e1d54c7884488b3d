import { monitorToMessage, redactCredentials, type MonitorKind, type MonitorMessageByKind, type MonitorRecord } from "@vigil/domain";
import { MadeOnce } from "./made-once";
import { MAX_KEPT_RECORDS } from "./records-by-version";

type Message = MonitorMessageByKind[MonitorKind];

const messages = new MadeOnce<MonitorRecord, Message>(monitorToMessage, MAX_KEPT_RECORDS);

/**
 * What read keys are answered: the message with its credentials redacted
 * (credentials.ts in @vigil/domain), or, for a monitor without any, the full
 * message itself, so that most monitors cost nothing more and share their
 * written JSON with write keys.
 */
const readKeyViews = new MadeOnce<MonitorRecord, Message>((record) => {
  const config = redactCredentials(record.config, record.id);
  return config === record.config ? messageOf(record) : monitorToMessage({ ...record, config });
}, MAX_KEPT_RECORDS);

/**
 * The API message of a record, made once per record object: the repository
 * hands out the same record while its row is unchanged (records-by-version.ts),
 * so a page read again is not mapped again. Nothing changes a message after
 * it is made, so answers may share it. `readKey`: the form read keys see.
 */
export function messageOf<K extends MonitorKind>(record: MonitorRecord<K>, readKey = false): MonitorMessageByKind[K] {
  return (readKey ? readKeyViews : messages).of(record) as MonitorMessageByKind[K];
}
