import { IncidentService, MaintenanceService, MonitorService } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { AccountService, ApiKeyService, AuditLogService, MemberService, SsoService } from "@vigil/proto/account";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { httpApi, type Identity, type RevokedApiKey, type SignedIn } from "./http-api.js";
import { resolveOptions, type CallOptions, type ClientOptions, type ResolvedOptions } from "./options.js";
import { serviceClient, type ServiceClient } from "./services.js";

export interface VigilClient {
  /** The API address calls go to, after options and SERVICE_API_URL were weighed. */
  readonly baseUrl: string;
  readonly monitors: ServiceClient<typeof MonitorService>;
  readonly incidents: ServiceClient<typeof IncidentService>;
  /** Maintenance windows (monitor.v1.MaintenanceService). */
  readonly maintenance: ServiceClient<typeof MaintenanceService>;
  readonly notifications: ServiceClient<typeof NotificationService>;
  readonly statusPages: ServiceClient<typeof StatusPageService>;
  readonly members: ServiceClient<typeof MemberService>;
  /** A person's own account: the server answers it to a person's session only, and refuses an API key (permission_denied). */
  readonly account: ServiceClient<typeof AccountService>;
  /** Needs a session of an admin or owner: no API key may manage keys. */
  readonly apiKeys: ServiceClient<typeof ApiKeyService>;
  /** The workspace's single sign-on (OpenID Connect): its owners only, with a session; no API key may call it. */
  readonly sso: ServiceClient<typeof SsoService>;
  /** The workspace's audit log: its owners and admins, with a session; no API key may read it. */
  readonly auditLog: ServiceClient<typeof AuditLogService>;
  /** GET /v1/whoami; a read, so retried after `unavailable`. */
  whoami(options?: CallOptions): Promise<Identity>;
  /** DELETE /v1/api-key/:id; never retried. */
  revokeApiKey(id: string, options?: CallOptions): Promise<RevokedApiKey>;
  /** POST /v1/auth/sign-in, needing no credentials; the answer's token is the `session` option of a new client. Never retried. */
  signIn(credentials: { email: string; password: string; totp?: string }, options?: CallOptions): Promise<SignedIn>;
  /** POST /v1/auth/sign-out: ends the client's session on the server. */
  signOut(options?: CallOptions): Promise<void>;
}

// Answers from a newer server may carry fields this client does not know yet.
const jsonOptions = { ignoreUnknownFields: true };

function transportFor({ protocol, baseUrl }: ResolvedOptions): Transport {
  if (protocol === "grpc") return createGrpcTransport({ baseUrl, jsonOptions });
  if (protocol === "grpc-web") return createGrpcWebTransport({ baseUrl, httpVersion: "1.1", jsonOptions });
  return createConnectTransport({ baseUrl, httpVersion: "1.1", jsonOptions });
}

/**
 * A client of one Vigil API, calling with an API key or a person's session.
 * Options win over SERVICE_API_KEY / SERVICE_API_URL; a missing key is reported by the first call, so a client can be made before
 * the key is known (to print help, say).
 */
export function createClient(options: ClientOptions = {}): VigilClient {
  const config = resolveOptions(options, process.env);
  const transport = transportFor(config);
  const http = httpApi(config);
  return {
    baseUrl: config.baseUrl,
    monitors: serviceClient(MonitorService, transport, config),
    incidents: serviceClient(IncidentService, transport, config),
    maintenance: serviceClient(MaintenanceService, transport, config),
    notifications: serviceClient(NotificationService, transport, config),
    statusPages: serviceClient(StatusPageService, transport, config),
    members: serviceClient(MemberService, transport, config),
    account: serviceClient(AccountService, transport, config),
    apiKeys: serviceClient(ApiKeyService, transport, config),
    sso: serviceClient(SsoService, transport, config),
    auditLog: serviceClient(AuditLogService, transport, config),
    whoami: http.whoami,
    revokeApiKey: http.revokeApiKey,
    signIn: http.signIn,
    signOut: http.signOut,
  };
}
