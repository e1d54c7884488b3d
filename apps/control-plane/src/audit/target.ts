import type { DescMessage, DescMethod, DescService } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";

/** What a mutation acted on: the kind of resource (HTTPMonitor, StatusPageComponent, ApiKey…) and its id. */
export interface AuditTarget {
  kind: string;
  id: string;
}

/**
 * Whether a method changes anything: every method the contract does not mark
 * free of side effects (idempotency_level NO_SIDE_EFFECTS), the same rule that
 * asks for the write scope, so a new RPC is audited without a list to update.
 */
export const isMutation = (method: DescMethod) => method.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;

/** The field of a request or answer that carries a resource: a message with an `id` of its own. */
const resourceField = (message: DescMessage) =>
  message.fields.find((f) => f.fieldKind === "message" && f.message.fields.some((g) => g.name === "id" && g.fieldKind === "scalar"));

/** The resources a service's messages carry (HTTPMonitor, TCPMonitor…), longest first. */
function resourceKinds(service: DescService): string[] {
  const kinds = new Set<string>();
  for (const method of service.methods) {
    for (const message of [method.input, method.output]) {
      const field = resourceField(message);
      if (field?.fieldKind === "message") kinds.add(field.message.name);
    }
  }
  return [...kinds].sort((a, b) => b.length - a.length);
}

const kindsByService = new WeakMap<DescService, string[]>();

/**
 * The kind is the resource the method's name ends with (DeleteStatusPageComponent:
 * StatusPageComponent, SendTestNotification: Notification), else the name
 * without its verb. The id is the one of the resource answered (a create's new
 * id), else the request's `id`.
 */
export function targetOf(method: DescMethod, request: object, answer: object): AuditTarget {
  const service = method.parent;
  if (!kindsByService.has(service)) kindsByService.set(service, resourceKinds(service));
  const kind = kindsByService.get(service)!.find((k) => method.name.endsWith(k)) ?? method.name.replace(/^[A-Z][a-z]+/, "");
  const answered = resourceField(method.output);
  const resource = answered && (answer as Record<string, { id?: string } | undefined>)[answered.localName];
  const id = resource?.id || (request as { id?: unknown }).id;
  return { kind, id: typeof id === "string" ? id : "" };
}
