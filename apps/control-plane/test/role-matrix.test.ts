import type { DescMethod, DescMethodStreaming, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { SESSION_COOKIE, WORKSPACE_HEADER } from "@vigil/domain";
import { IncidentService, MaintenanceService, MonitorService } from "@vigil/proto";
import { AccountService, ApiKeyService, AuditLogService, MemberService, SsoService } from "@vigil/proto/account";
import { Health, reflectionV1, reflectionV1alpha } from "@vigil/proto/grpc";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { API_KEY_HEADER } from "../src/auth/api-keys";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { signedInPerson, type Person } from "./support/people";
import { reflectedServices } from "./support/reflection";

/**
 * Who may call every RPC of every service the server registers. Each caller
 * gets "ok" (authorized: the empty request may still fail validation or not
 * be found, but neither unauthenticated nor permission_denied), or one of the
 * two refusals. Adding a service is one `rows(...)` line; a service or method
 * the server has and the matrix lacks fails the first test.
 */
const CALLERS = ["no credentials", "unknown key", "read key", "write key", "legacy key", "viewer", "editor", "admin", "owner", "another workspace's owner"] as const;
type Caller = (typeof CALLERS)[number];
/** As Connect names the codes, so that a failing cell reads as such. */
type Cell = "ok" | "unauthenticated" | "permission_denied";
type Row = Record<Caller, Cell>;

const row = (...cells: Cell[]): Row => Object.fromEntries(CALLERS.map((caller, i) => [caller, cells[i]!])) as Row;
const [A, U, D] = ["ok", "unauthenticated", "permission_denied"] as const;
//                 none unknown read write legacy viewer editor admin owner stranger
/** Needs no credentials: gRPC health and reflection, and what carries its own token (accepting an invitation). */
const OPEN = row(A, A, A, A, A, A, A, A, A, A);
/** Reads a workspace's data: any key or member of it. */
const READ = row(U, U, A, A, A, A, A, A, A, D);
/** Changes a workspace's monitors, channels, pages: a write (or legacy) key, an editor or above. */
const WRITE = row(U, U, D, A, A, D, A, A, A, D);
/** Members, API keys and the audit log: an admin or owner, never a key. */
const ADMIN = row(U, U, D, D, D, D, D, A, A, D);
/** The workspace's single sign-on: its owners only. */
const OWNER = row(U, U, D, D, D, D, D, D, A, D);
/** The caller's own account: any signed-in person, whatever their workspaces; never a key. */
const PERSON = row(U, U, D, D, D, A, A, A, A, A);

/** A service's rows, by the methods' proto names: the compiler asks for every method of the generated service. */
const rows = <S extends DescService & { method: object }>(service: S, methods: Record<Capitalize<keyof S["method"] & string>, Row>) => ({
  service: service as DescService,
  methods: methods as Record<string, Row>,
});

const MATRIX = [
  rows(MonitorService, {
    CreateHTTPMonitor: WRITE,
    UpdateHTTPMonitor: WRITE,
    CreateTCPMonitor: WRITE,
    UpdateTCPMonitor: WRITE,
    CreateDNSMonitor: WRITE,
    UpdateDNSMonitor: WRITE,
    CreateGRPCMonitor: WRITE,
    UpdateGRPCMonitor: WRITE,
    CreateHeartbeatMonitor: WRITE,
    UpdateHeartbeatMonitor: WRITE,
    ListHeartbeatPings: READ,
    ListMonitors: READ,
    GetMonitor: READ,
    TriggerMonitor: WRITE,
    DeleteMonitor: WRITE,
    GetMonitorStatus: READ,
    GetMonitorSummary: READ,
    GetMonitorSlo: READ,
    GetMonitorReport: READ,
    GetMonitorTimeseries: READ,
    ListCheckResults: READ,
    ListRegions: READ,
    ListMonitorOverviews: READ,
    WatchMonitorOverviews: READ,
  }),
  rows(IncidentService, { ListIncidents: READ, GetIncident: READ, AcknowledgeIncident: WRITE }),
  rows(NotificationService, {
    CreateNotification: WRITE,
    GetNotification: READ,
    ListNotifications: READ,
    UpdateNotification: WRITE,
    DeleteNotification: WRITE,
    SendTestNotification: WRITE,
    ListNotificationDeliveries: READ,
  }),
  rows(StatusPageService, {
    CreateStatusPage: WRITE,
    GetStatusPage: READ,
    GetStatusPageReport: READ,
    ListStatusPages: READ,
    UpdateStatusPage: WRITE,
    DeleteStatusPage: WRITE,
    PublishStatusPage: WRITE,
    UnpublishStatusPage: WRITE,
    CreateStatusPageComponent: WRITE,
    GetStatusPageComponent: READ,
    ListStatusPageComponents: READ,
    UpdateStatusPageComponent: WRITE,
    DeleteStatusPageComponent: WRITE,
    CreateStatusPageComponentGroup: WRITE,
    GetStatusPageComponentGroup: READ,
    ListStatusPageComponentGroups: READ,
    UpdateStatusPageComponentGroup: WRITE,
    DeleteStatusPageComponentGroup: WRITE,
    CreateStatusPageIncident: WRITE,
    AddStatusPageIncidentUpdate: WRITE,
    ListStatusPageIncidents: READ,
    GetStatusPageIncident: READ,
    UpdateStatusPageIncident: WRITE,
    DeleteStatusPageIncident: WRITE,
    ListStatusPageSubscribers: READ,
    DeleteStatusPageSubscriber: WRITE,
  }),
  rows(MaintenanceService, {
    CreateMaintenanceWindow: WRITE,
    ListMaintenanceWindows: READ,
    GetMaintenanceWindow: READ,
    UpdateMaintenanceWindow: WRITE,
    DeleteMaintenanceWindow: WRITE,
  }),
  rows(AccountService, {
    GetProfile: PERSON,
    UpdateProfile: PERSON,
    ChangePassword: PERSON,
    ListSessions: PERSON,
    EndSession: PERSON,
    ListWorkspaces: PERSON,
    BeginTotpEnrolment: PERSON,
    ConfirmTotpEnrolment: PERSON,
    DisableTotp: PERSON,
    RegenerateRecoveryCodes: PERSON,
    SendVerificationEmail: PERSON,
  }),
  rows(MemberService, {
    ListMembers: READ,
    InviteMember: ADMIN,
    ListInvitations: ADMIN,
    RevokeInvitation: ADMIN,
    AcceptInvitation: OPEN,
    UpdateMemberRole: ADMIN,
    RemoveMember: ADMIN,
  }),
  rows(ApiKeyService, { CreateApiKey: ADMIN, ListApiKeys: ADMIN, RevokeApiKey: ADMIN }),
  rows(AuditLogService, { ListAuditLogEntries: ADMIN }),
  rows(SsoService, { GetSsoSettings: OWNER, SetSsoSettings: OWNER }),
  rows(Health, { Check: OPEN }),
  rows(reflectionV1.ServerReflection, { ServerReflectionInfo: OPEN }),
  rows(reflectionV1alpha.ServerReflection, { ServerReflectionInfo: OPEN }),
];

/** The outcome of calling `method` with an empty request and `header`: "ok" when authorization let it through. */
async function outcome(transports: { unary: Transport; stream: Transport }, method: DescMethod, header: Record<string, string>): Promise<Cell> {
  try {
    if (method.methodKind === "unary") {
      await transports.unary.unary(method as DescMethodUnary, undefined, undefined, header, {});
    } else {
      async function* once() {
        yield {};
      }
      const { message } = await transports.stream.stream(method as DescMethodStreaming, undefined, undefined, header, once());
      for await (const _ of message) break;
    }
  } catch (error) {
    const { code } = ConnectError.from(error);
    if (code === Code.Unauthenticated) return U;
    if (code === Code.PermissionDenied) return D;
  }
  return "ok";
}

describe.each(BACKENDS)("the role matrix over every RPC of every service on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let headers: Record<Caller, Record<string, string>>;
  let transports: { unary: Transport; stream: Transport };

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    const other = await api.workspace();
    const session = (person: Person, slug = ws.slug) => ({ cookie: `${SESSION_COOKIE}=${person.token}`, [WORKSPACE_HEADER]: slug });
    const person = async (role: "viewer" | "editor" | "admin" | "owner") => session(await signedInPerson(api.db.prisma, api.baseUrl, ws.slug, role));
    headers = {
      "no credentials": {},
      "unknown key": { [API_KEY_HEADER]: "vgl_unknown" },
      "read key": { [API_KEY_HEADER]: ws.read.key },
      "write key": { [API_KEY_HEADER]: ws.write.key },
      "legacy key": { [API_KEY_HEADER]: ws.legacy.key },
      viewer: await person("viewer"),
      editor: await person("editor"),
      admin: await person("admin"),
      owner: await person("owner"),
      // An owner of another workspace, naming this one.
      "another workspace's owner": session(await signedInPerson(api.db.prisma, api.baseUrl, other.slug, "owner")),
    };
    // Streams (reflection) need HTTP/2; unary calls go as a browser's would.
    transports = { unary: createConnectTransport({ baseUrl: api.baseUrl, httpVersion: "1.1" }), stream: createGrpcTransport({ baseUrl: api.baseUrl }) };
  });
  afterAll(() => api?.close());

  /** How many rows each table holds: a refused call (and an empty request) must change none. */
  const written = async () => {
    const tables = await api.db.prisma.$queryRaw<{ name: string }[]>`
      SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_prisma%' ORDER BY table_name`;
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const [{ n }] = await api.db.prisma.$queryRawUnsafe<[{ n: number }]>(`SELECT count(*)::int AS n FROM "${name}"`);
      counts[name] = n;
    }
    return {
      counts,
      roles: await api.db.prisma.membership.findMany({ select: { userId: true, workspaceId: true, role: true }, orderBy: [{ userId: "asc" }, { workspaceId: "asc" }] }),
      revokedKeys: await api.db.prisma.apiKey.count({ where: { revokedAt: { not: null } } }),
    };
  };

  it("has a row for every method of every service the server registers, and no other", async () => {
    const registered = (await reflectedServices(api.baseUrl)).sort();
    expect(MATRIX.map(({ service }) => service.typeName).sort()).toEqual(registered);
    for (const { service, methods } of MATRIX) {
      expect([service.typeName, Object.keys(methods).sort()]).toEqual([service.typeName, service.methods.map((m) => m.name).sort()]);
    }
  });

  it.each(MATRIX.map(({ service, methods }) => [service.typeName, service, methods] as const))(
    "%s answers every caller as the matrix says, and writes nothing",
    async (_name, service, methods) => {
      const before = await written();
      const answered: Record<string, Row> = {};
      for (const method of service.methods) {
        const cells = await Promise.all(CALLERS.map((caller) => outcome(transports, method, headers[caller])));
        answered[method.name] = row(...cells);
      }
      expect(answered).toEqual(methods);
      expect(await written()).toEqual(before);
    },
  );
});
