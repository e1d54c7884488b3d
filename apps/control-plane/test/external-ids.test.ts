import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema, type FieldMask } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { MonitorService, Periodicity } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import type { StatusPageService } from "@vigil/proto/status-page";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { codeOf, expectRefused } from "./support/codes";
import { EVERY_PROVIDER_ENV, channel } from "./support/channels";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
const periodicity = Periodicity.PERIODICITY_5M;
const expectedFingerprint = (pageId: string, password: string) => createHash("sha256").update(`${pageId}:${password}`).digest("hex").slice(0, 16);

/** The clients of one workspace. */
interface Clients {
  monitors: Client<typeof MonitorService>;
  notifications: Client<typeof NotificationService>;
  pages: Client<typeof StatusPageService>;
}

/** A resource with an external id: what the test does with each of the kinds the same way. */
interface Resource {
  /** The field that names the external id in errors. */
  field: string;
  /** Whom a duplicate's message calls the other one, e.g. "monitor of this workspace". */
  others: string;
  /** Creates one in the given workspace (under `parent` for components and groups); its id and answered external id. */
  create(clients: Clients, externalId: string | undefined, parent: string): Promise<{ id: string; externalId: string | undefined }>;
  get(clients: Clients, id: string, parent: string): Promise<string | undefined>;
  list(clients: Clients, id: string, parent: string): Promise<string | undefined>;
  /** Updates only the external id (a message carrying `externalId` when it is defined); the answered external id. */
  update(clients: Clients, id: string, parent: string, externalId: string | undefined, updateMask?: FieldMask): Promise<string | undefined>;
}

let names = 0;
const uniqueName = (what: string) => `${what}-${process.pid}-${++names}`;
const newPage = async (clients: Clients) =>
  (await clients.pages.createStatusPage({ statusPage: { title: "Acme", slug: uniqueName("external-ids") } })).statusPage!.id;

const monitorOf = (kind: "HTTP" | "TCP" | "DNS" | "GRPC"): Resource => {
  const target = kind === "HTTP" ? { url: "https://example.com/health" } : { uri: kind === "DNS" ? "example.com" : "example.com:443" };
  const createCall = `create${kind}Monitor` as const;
  const updateCall = `update${kind}Monitor` as const;
  const listed = `${kind.toLowerCase()}Monitors` as "httpMonitors" | "tcpMonitors" | "dnsMonitors" | "grpcMonitors";
  return {
    field: "monitor.externalId",
    others: "monitor of this workspace",
    async create({ monitors }, externalId) {
      const call = monitors[createCall] as (req: object) => Promise<{ monitor?: { id: string; externalId?: string } }>;
      const { monitor } = await call({ monitor: { name: "m", periodicity, ...target, externalId } });
      return { id: monitor!.id, externalId: monitor!.externalId };
    },
    async get({ monitors }, id) {
      const { monitor } = await monitors.getMonitor({ id });
      return monitor!.config.value!.externalId;
    },
    async list({ monitors }, id) {
      return (await monitors.listMonitors({ limit: 100 }))[listed].find((m) => m.id === id)?.externalId;
    },
    async update({ monitors }, id, _parent, externalId, updateMask) {
      const call = monitors[updateCall] as (req: object) => Promise<{ monitor?: { externalId?: string } }>;
      return (await call({ id, monitor: { externalId }, updateMask })).monitor!.externalId;
    },
  };
};

const RESOURCES: Record<string, Resource> = {
  "HTTP monitor": monitorOf("HTTP"),
  "TCP monitor": monitorOf("TCP"),
  "DNS monitor": monitorOf("DNS"),
  "gRPC monitor": monitorOf("GRPC"),
  notification: {
    field: "notification.externalId",
    others: "notification of this workspace",
    async create({ notifications }, externalId) {
      const { notification } = await notifications.createNotification({ notification: channel("slack", undefined, { name: "ops", externalId }) });
      return { id: notification!.id, externalId: notification!.externalId };
    },
    get: async ({ notifications }, id) => (await notifications.getNotification({ id })).notification!.externalId,
    list: async ({ notifications }, id) => (await notifications.listNotifications({ limit: 100 })).notifications.find((n) => n.id === id)?.externalId,
    update: async ({ notifications }, id, _parent, externalId, updateMask) =>
      (await notifications.updateNotification({ id, notification: { externalId }, updateMask })).notification!.externalId,
  },
  "status page": {
    field: "statusPage.externalId",
    others: "status page of this workspace",
    async create({ pages }, externalId) {
      const { statusPage } = await pages.createStatusPage({ statusPage: { title: "Acme", slug: uniqueName("page"), externalId } });
      return { id: statusPage!.id, externalId: statusPage!.externalId };
    },
    get: async ({ pages }, id) => (await pages.getStatusPage({ id })).statusPage!.externalId,
    list: async ({ pages }, id) => (await pages.listStatusPages({ limit: 100 })).statusPages.find((p) => p.id === id)?.externalId,
    update: async ({ pages }, id, _parent, externalId, updateMask) =>
      (await pages.updateStatusPage({ id, statusPage: { externalId }, updateMask })).statusPage!.externalId,
  },
  component: {
    field: "component.externalId",
    others: "component of this page",
    async create({ pages }, externalId, pageId) {
      const { component } = await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "API", externalId } });
      return { id: component!.id, externalId: component!.externalId };
    },
    get: async ({ pages }, id, pageId) => (await pages.getStatusPageComponent({ pageId, id })).component!.externalId,
    list: async ({ pages }, id, pageId) =>
      (await pages.listStatusPageComponents({ pageId, limit: 100 })).components.find((c) => c.id === id)?.externalId,
    update: async ({ pages }, id, pageId, externalId, updateMask) =>
      (await pages.updateStatusPageComponent({ pageId, id, component: { externalId }, updateMask })).component!.externalId,
  },
  group: {
    field: "group.externalId",
    others: "group of this page",
    async create({ pages }, externalId, pageId) {
      const { group } = await pages.createStatusPageComponentGroup({ group: { pageId, name: "Core", externalId } });
      return { id: group!.id, externalId: group!.externalId };
    },
    get: async ({ pages }, id, pageId) => (await pages.getStatusPageComponentGroup({ pageId, id })).group!.externalId,
    list: async ({ pages }, id, pageId) => (await pages.listStatusPageComponentGroups({ pageId, limit: 100 })).groups.find((g) => g.id === id)?.externalId,
    update: async ({ pages }, id, pageId, externalId, updateMask) =>
      (await pages.updateStatusPageComponentGroup({ pageId, id, group: { externalId }, updateMask })).group!.externalId,
  },
};

describe.each(BACKENDS)("external ids on %s", (backend) => {
  let api: TestApi;
  let mine: Clients;
  let theirs: Clients;

  const clientsOf = (key: string): Clients => ({
    monitors: api.client(key),
    notifications: api.notificationClient(key),
    pages: api.statusPageClient(key),
  });

  beforeAll(async () => {
    api = await startTestApi(backend, { providerEnv: EVERY_PROVIDER_ENV });
    mine = clientsOf((await api.workspace()).write.key);
    theirs = clientsOf((await api.workspace()).write.key);
  });
  afterAll(() => api.close());

  /** Every external id stored, to show that a refused request wrote nothing. */
  const snapshot = async () => {
    const select = { id: true, externalId: true, updatedAt: true } as const;
    const orderBy = { id: "asc" } as const;
    const { prisma } = api.db;
    return Promise.all([
      prisma.monitor.findMany({ select, orderBy }),
      prisma.notificationChannel.findMany({ select, orderBy }),
      prisma.statusPage.findMany({ select, orderBy }),
      prisma.statusPageComponent.findMany({ select, orderBy }),
      prisma.statusPageComponentGroup.findMany({ select, orderBy }),
    ]);
  };
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);

  describe.each(Object.entries(RESOURCES))("%s", (_kind, resource) => {
    /** Components and groups live on a page of their own per test; other kinds ignore it. */
    let parent: string;
    beforeEach(async () => {
      parent = await newPage(mine);
    });

    it("is stored on create and answered by get and list, empty when none", async () => {
      const externalId = uniqueName("svc:api/v1_main.x");
      const made = await resource.create(mine, externalId, parent);
      expect(made.externalId).toBe(externalId);
      expect(await resource.get(mine, made.id, parent)).toBe(externalId);
      expect(await resource.list(mine, made.id, parent)).toBe(externalId);

      const plain = await resource.create(mine, undefined, parent);
      expect(plain.externalId).toBe("");
      expect(await resource.get(mine, plain.id, parent)).toBe("");
      expect(await resource.list(mine, plain.id, parent)).toBe("");
      expect((await resource.create(mine, "", parent)).externalId).toBe("");
    });

    it("is set, changed and cleared by updates without a mask, and kept by updates that do not send it", async () => {
      const { id } = await resource.create(mine, undefined, parent);
      const first = uniqueName("first");
      const second = uniqueName("second");
      expect(await resource.update(mine, id, parent, first)).toBe(first);
      expect(await resource.update(mine, id, parent, undefined)).toBe(first);
      expect(await resource.update(mine, id, parent, second)).toBe(second);
      expect(await resource.get(mine, id, parent)).toBe(second);
      expect(await resource.update(mine, id, parent, "")).toBe("");
      expect(await resource.get(mine, id, parent)).toBe("");
    });

    it("is set by a mask naming it alone (either spelling), and cleared by a mask naming it without a value", async () => {
      const { id } = await resource.create(mine, undefined, parent);
      const first = uniqueName("masked");
      expect(await resource.update(mine, id, parent, first, mask("external_id"))).toBe(first);
      const second = uniqueName("masked");
      expect(await resource.update(mine, id, parent, second, mask("externalId"))).toBe(second);
      expect(await resource.update(mine, id, parent, undefined, mask("external_id"))).toBe("");
      expect(await resource.get(mine, id, parent)).toBe("");
    });

    it("refuses an external id another one of its scope has, with already_exists naming the field", async () => {
      const taken = uniqueName("taken");
      await resource.create(mine, taken, parent);
      const duplicate = `${resource.field}: another ${resource.others} has external id ${taken}`;
      await refused(() => resource.create(mine, taken, parent), Code.AlreadyExists, duplicate);
      const { id } = await resource.create(mine, undefined, parent);
      await refused(() => resource.update(mine, id, parent, taken), Code.AlreadyExists, duplicate);
      await refused(() => resource.update(mine, id, parent, taken, mask("external_id")), Code.AlreadyExists, duplicate);
      // Updating one to the external id it already has is no conflict.
      const own = await resource.create(mine, uniqueName("own"), parent);
      expect(await resource.update(mine, own.id, parent, own.externalId)).toBe(own.externalId);
    });

    it("takes an external id another workspace has", async () => {
      const shared = uniqueName("shared");
      await resource.create(mine, shared, parent);
      expect((await resource.create(theirs, shared, await newPage(theirs))).externalId).toBe(shared);
    });

    it("refuses an invalid external id with invalid_argument naming the field and the rule", async () => {
      const { id } = await resource.create(mine, undefined, parent);
      const rule = "must be letters, digits and . _ : / -, starting with a letter or digit";
      await refused(() => resource.create(mine, "-leading-hyphen", parent), Code.InvalidArgument, `${resource.field}: ${rule}`);
      await refused(() => resource.create(mine, "has space", parent), Code.InvalidArgument, `${resource.field}: ${rule}`);
      await refused(() => resource.create(mine, "x".repeat(257), parent), Code.InvalidArgument, `${resource.field}: `);
      await refused(() => resource.update(mine, id, parent, "a*b"), Code.InvalidArgument, `${resource.field}: ${rule}`);
      await refused(() => resource.update(mine, id, parent, "a*b", mask("externalId")), Code.InvalidArgument, `${resource.field}: ${rule}`);
      const longest = uniqueName("longest").padEnd(256, "x");
      expect((await resource.create(mine, longest, parent)).externalId).toBe(longest);
    });
  });

  it("is unique across the monitor kinds of a workspace", async () => {
    const shared = uniqueName("monitor");
    await RESOURCES["HTTP monitor"]!.create(mine, shared, "");
    const message = `monitor.externalId: another monitor of this workspace has external id ${shared}`;
    await refused(() => RESOURCES["TCP monitor"]!.create(mine, shared, ""), Code.AlreadyExists, message);
    const dns = await RESOURCES["DNS monitor"]!.create(mine, undefined, "");
    await refused(() => RESOURCES["DNS monitor"]!.update(mine, dns.id, "", shared), Code.AlreadyExists, message);
    await refused(() => RESOURCES["gRPC monitor"]!.create(mine, shared, ""), Code.AlreadyExists, message);
  });

  it("lets only one of two concurrent creates with the same external id succeed, the other being already_exists", async () => {
    const contested = uniqueName("contested");
    const outcomes = await Promise.all(
      [RESOURCES["HTTP monitor"]!, RESOURCES["TCP monitor"]!].map((resource) => codeOf(resource.create(mine, contested, ""))),
    );
    expect(outcomes.sort()).toEqual(["ok", Code.AlreadyExists].sort());
  });

  it("lets two pages each have a component and a group with the same external id", async () => {
    const [first, second] = [await newPage(mine), await newPage(mine)];
    for (const kind of ["component", "group"]) {
      const shared = uniqueName(kind);
      await RESOURCES[kind]!.create(mine, shared, first);
      expect((await RESOURCES[kind]!.create(mine, shared, second)).externalId).toBe(shared);
    }
  });

  it("leaves a monitor's check configuration alone when only its external id changes", async () => {
    const { monitor } = await mine.monitors.createHTTPMonitor({ monitor: { name: "kept", url: "https://example.com/kept", periodicity, retry: 1n } });
    const { monitor: updated } = await mine.monitors.updateHTTPMonitor({ id: monitor!.id, monitor: { externalId: "kept" }, updateMask: mask("external_id") });
    expect(updated).toMatchObject({ name: "kept", url: "https://example.com/kept", periodicity, retry: 1n, externalId: "kept" });
  });

  describe("password fingerprint", () => {
    const page = (id: string) => mine.pages.getStatusPage({ id }).then((r) => r.statusPage!);

    it("is the first 16 hex digits of SHA-256 over <page id>:<password>, after create and after a password change", async () => {
      const { statusPage } = await mine.pages.createStatusPage({
        statusPage: { title: "Private", slug: uniqueName("private"), accessType: "password", password: "open sesame" },
      });
      const id = statusPage!.id;
      expect(statusPage!.passwordFingerprint).toBe(expectedFingerprint(id, "open sesame"));
      expect((await page(id)).passwordFingerprint).toBe(expectedFingerprint(id, "open sesame"));
      expect((await mine.pages.listStatusPages({ limit: 100 })).statusPages.find((p) => p.id === id)?.passwordFingerprint).toBe(
        expectedFingerprint(id, "open sesame"),
      );

      const { statusPage: changed } = await mine.pages.updateStatusPage({ id, statusPage: { password: "new words" } });
      expect(changed!.passwordFingerprint).toBe(expectedFingerprint(id, "new words"));
      expect((await page(id)).passwordFingerprint).toBe(expectedFingerprint(id, "new words"));
      // Sending the same password again keeps it, fingerprint included.
      const { statusPage: resent } = await mine.pages.updateStatusPage({ id, statusPage: { password: "new words" } });
      expect(resent!.passwordFingerprint).toBe(expectedFingerprint(id, "new words"));
    });

    it("is empty for a public page, and cleared with the password", async () => {
      const { statusPage } = await mine.pages.createStatusPage({ statusPage: { title: "Open", slug: uniqueName("open") } });
      expect(statusPage!.passwordFingerprint).toBe("");
      const id = statusPage!.id;
      await mine.pages.updateStatusPage({ id, statusPage: { accessType: "password", password: "pw" } });
      expect((await page(id)).passwordFingerprint).toBe(expectedFingerprint(id, "pw"));
      const { statusPage: cleared } = await mine.pages.updateStatusPage({ id, statusPage: { accessType: "public" }, updateMask: mask("access_type", "password") });
      expect(cleared!.passwordFingerprint).toBe("");
    });

    it("is empty for a page whose password was set before fingerprints were kept, until the password is set again", async () => {
      const { statusPage } = await mine.pages.createStatusPage({
        statusPage: { title: "Old", slug: uniqueName("old"), accessType: "password", password: "from before" },
      });
      const id = statusPage!.id;
      await api.db.prisma.statusPage.update({ where: { id }, data: { passwordFingerprint: null } });
      expect((await page(id)).passwordFingerprint).toBe("");
      const { statusPage: again } = await mine.pages.updateStatusPage({ id, statusPage: { password: "from before" } });
      expect(again!.passwordFingerprint).toBe(expectedFingerprint(id, "from before"));
    });

    it("cannot be written: an update mask naming it is refused", async () => {
      const { statusPage } = await mine.pages.createStatusPage({ statusPage: { title: "RO", slug: uniqueName("ro") } });
      await refused(
        () => mine.pages.updateStatusPage({ id: statusPage!.id, statusPage: { passwordFingerprint: "0123456789abcdef" }, updateMask: mask("password_fingerprint") }),
        Code.InvalidArgument,
        "updateMask: names password_fingerprint",
      );
    });
  });
});
