import { toJson, type JsonObject } from "@bufbuild/protobuf";
import type { Interceptor, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import type { Logger } from "@vigil/logging";
import { recordAudit } from "./record";
import { redactForAudit } from "./redaction";
import type { AuditActor, AuditStore } from "./store";
import { isMutation, targetOf } from "./target";

/** Who made a call and in which workspace: from the resolved API key, or from the answer for the admin service. */
export type Attribution = (req: UnaryRequest, res: UnaryResponse) => Promise<{ workspaceId: string; actor: AuditActor }>;

/**
 * Records every successful mutation once the handler has answered: a failed
 * or refused call throws before this point and leaves no entry. Place it after
 * authentication, so that the caller is known.
 */
export function auditInterceptor(store: AuditStore, attribute: Attribution, logger: Logger): Interceptor {
  return (next) => async (req) => {
    const res = await next(req);
    if (req.stream || res.stream || !isMutation(req.method)) return res;
    const target = targetOf(req.method, req.message, res.message);
    const changes = redactForAudit(toJson(req.method.input, req.message), target.id) as JsonObject;
    const method = `${req.service.typeName}/${req.method.name}`;
    await recordAudit(store, { ...(await attribute(req, res)), method, targetKind: target.kind, targetId: target.id, changes }, logger);
    return res;
  };
}
