import { clone, toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { FieldMaskSchema, TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { Interceptor, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import type { Logger } from "@vigil/logging";
import { recordAudit } from "./record";
import { redactForAudit, withoutPeoplesSecrets } from "./redaction";
import type { AuditActor, AuditStore } from "./store";
import { isMutation, targetOf } from "./target";

/** Who made a call and in which workspace: from the resolved API key, or from the answer for the admin service. */
export type Attribution = (req: UnaryRequest, res: UnaryResponse) => Promise<{ workspaceId: string; actor: AuditActor }>;

/**
 * A request as JSON. The API accepts update masks in either spelling
 * (`degraded_at`, `degradedAt`), but protobuf's JSON form of a FieldMask
 * refuses paths already in camelCase, so they are written in snake_case first.
 */
function requestJson(schema: DescMessage, message: Message): JsonObject {
  const copy = clone(schema, message) as Message & Record<string, unknown>;
  for (const field of schema.fields) {
    if (field.fieldKind !== "message" || field.message.typeName !== FieldMaskSchema.typeName) continue;
    const mask = copy[field.localName] as { paths: string[] } | undefined;
    if (mask) mask.paths = mask.paths.map((path) => path.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
  }
  withoutTimestamps(reflect(schema, copy));
  return toJson(schema, copy) as JsonObject;
}

/**
 * Clears the timestamps of a request, at any depth: every one a request can
 * carry is read-only (`createdAt`, `updatedAt`) and ignored by the API, so it
 * is no change to record, and JSON cannot write one out of its range (a
 * client may send any), which would lose the entry of a change that was made.
 */
function withoutTimestamps(message: ReflectMessage): void {
  for (const field of message.fields) {
    if (field.fieldKind === "message" && message.isSet(field)) {
      if (field.message.typeName === TimestampSchema.typeName) message.clear(field);
      else withoutTimestamps(message.get(field));
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of message.get(field)) withoutTimestamps(item as ReflectMessage);
    }
  }
}

/**
 * Records every successful mutation once the handler has answered: a failed
 * or refused call throws before this point and leaves no entry. Place it after
 * authentication, so that the caller is known.
 */
export function auditInterceptor(store: AuditStore, attribute: Attribution, logger: Logger): Interceptor {
  return (next) => async (req) => {
    const res = await next(req);
    if (req.stream || res.stream || !isMutation(req.method)) return res;
    const method = `${req.service.typeName}/${req.method.name}`;
    try {
      const target = targetOf(req.method, req.message, res.message);
      const request = requestJson(req.method.input, req.message);
      const who = await attribute(req, res);
      // A person's secrets are left out; a workspace's own (an SSO client secret) are fingerprinted with the workspace's id.
      const changes = (req.service.typeName.startsWith("account.v1.") ? withoutPeoplesSecrets(request, who.workspaceId) : redactForAudit(request, target.id)) as JsonObject;
      await recordAudit(store, { ...who, method, targetKind: target.kind, targetId: target.id, changes }, logger);
    } catch (error) {
      // The change is made: an answer of failure would make the client make it again.
      logger.error({ err: error, method }, "audit entry not written");
    }
    return res;
  };
}
