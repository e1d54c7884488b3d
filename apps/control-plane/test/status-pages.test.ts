import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code, createContextValues, createHandlerContext, type Client } from "@connectrpc/connect";
import { StatusPageService, type StatusPage } from "@vigil/proto/status-page";
import { actorKey } from "../src/auth/context";
import { loadConfig } from "../src/config";
import { Changes } from "../src/changes/changes";
import { verifyPassword } from "../src/auth/password";
import { StatusPageRepository } from "../src/status-pages/repository";
import { statusPageService } from "../src/status-pages/service";
import { BACKENDS, jsonOf, openTestDatabase, startTestApi, type TestApi } from "./support/api";
import { codeOf, expectRefused } from "./support/codes";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
type PageInit = Partial<Omit<StatusPage, "$typeName" | "$unknown" | "createdAt" | "updatedAt">>;

describe.each(BACKENDS)("status pages on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof StatusPageService>;
  let otherClient: Client<typeof StatusPageService>;
  let writeKey: string;
  let pages = 0;

  beforeAll(async () => {
    api = await startTestApi(backend, { reservedDomains: ["admin.vigil.test"] });
    writeKey = (await api.workspace()).write.key;
    client = api.statusPageClient(writeKey);
    otherClient = api.statusPageClient((await api.workspace()).write.key);
  });
  afterAll(() => api.close());

  const uniqueSlug = () => `page-${++pages}`;
  const createPage = async (init: PageInit = {}, c = client) =>
    (await c.createStatusPage({ statusPage: { title: "Acme", slug: uniqueSlug(), ...init } })).statusPage!;
  const row = (id: string) => api.db.prisma.statusPage.findUniqueOrThrow({ where: { id } });
  const snapshot = () => api.db.prisma.statusPage.findMany({ orderBy: { id: "asc" } });

  /** The call fails with this code and message, and writes nothing. */
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);
  const invalid = (init: PageInit, message: string) =>
    refused(() => client.createStatusPage({ statusPage: { title: "Acme", slug: uniqueSlug(), ...init } }), Code.InvalidArgument, message);

  describe("create", () => {
    it("stores a page with its defaults: public, published, system theme, empty optional fields", async () => {
      const page = await createPage({ title: "Acme status" });
      expect(page).toMatchObject({
        title: "Acme status",
        description: "",
        homepageUrl: "",
        contactUrl: "",
        icon: "",
        customDomain: "",
        accessType: "public",
        authEmailDomains: [],
        published: true,
        theme: "system",
        language: "en",
      });
      expect(page.password).toBeUndefined();
      expect(page.id).toMatch(/\S/);
      expect(page.createdAt).toBeDefined();
      expect((await client.getStatusPage({ id: page.id })).statusPage).toEqual(page);
      expect((await row(page.id)).accessVersion).toBe(0);
    });

    it("ignores read-only fields sent on create (id, published, theme)", async () => {
      const page = await createPage({ id: "chosen-id", published: false, theme: "dark" });
      expect(page).toMatchObject({ published: true, theme: "system" });
      expect(page.id).not.toBe("chosen-id");
    });

    it("requires statusPage, title and slug", async () => {
      await refused(() => client.createStatusPage({}), Code.InvalidArgument, "statusPage: is required");
      await refused(() => client.createStatusPage({ statusPage: { slug: uniqueSlug() } }), Code.InvalidArgument, "statusPage.title: is required");
      await refused(() => client.createStatusPage({ statusPage: { title: "t" } }), Code.InvalidArgument, "statusPage.slug: is required");
    });

    it("takes a title of 1 to 256 characters", async () => {
      expect((await createPage({ title: "t".repeat(256) })).title).toHaveLength(256);
      expect((await createPage({ title: "t" })).title).toBe("t");
      await invalid({ title: "t".repeat(257) }, "statusPage.title: must be at most 256 characters");
      await invalid({ title: "" }, "statusPage.title: must not be empty");
    });

    it("takes a slug of 1 to 256 lowercase letters, digits and single inner hyphens", async () => {
      const long = `a${"-b".repeat(127)}b`;
      expect(long).toHaveLength(256);
      expect((await createPage({ slug: long })).slug).toBe(long);
      expect((await createPage({ slug: "x" })).slug).toBe("x");
      expect((await createPage({ slug: "acme-2-status" })).slug).toBe("acme-2-status");
      await invalid({ slug: `${long}c` }, "statusPage.slug: must be at most 256 characters");
      await invalid({ slug: "" }, "statusPage.slug: must not be empty");
      for (const slug of ["Acme", "acme--status", "-acme", "acme-", "acme_status", "acme status", "acmé"]) {
        await invalid({ slug }, "statusPage.slug: must be lowercase letters, digits and single hyphens");
      }
    });

    it("refuses a reserved slug", async () => {
      for (const slug of ["admin", "api", "status", "vigil"]) await invalid({ slug }, "statusPage.slug: is a reserved word");
      expect((await createPage({ slug: "admin-team" })).slug).toBe("admin-team");
    });

    it("takes a description of at most 1024 characters", async () => {
      expect((await createPage({ description: "d".repeat(1024) })).description).toHaveLength(1024);
      await invalid({ description: "d".repeat(1025) }, "statusPage.description: must be at most 1024 characters");
    });

    it.each(["homepageUrl", "contactUrl", "icon"] as const)("takes an absolute http(s) URL, or nothing, as %s", async (field) => {
      expect((await createPage({ [field]: "https://acme.example/x" }))[field]).toBe("https://acme.example/x");
      expect((await createPage({ [field]: "http://acme.example" }))[field]).toBe("http://acme.example");
      expect((await createPage({ [field]: "" }))[field]).toBe("");
      for (const url of ["ftp://acme.example", "acme.example", "/relative", "https://"]) {
        await invalid({ [field]: url }, `statusPage.${field}: must be an absolute http:// or https:// URL`);
      }
    });

    it("takes a host name as customDomain, stored in lowercase", async () => {
      expect((await createPage({ customDomain: "Status.Acme.Example" })).customDomain).toBe("status.acme.example");
      for (const domain of ["https://status.acme.example", "status acme", "192.0.2.1", "-bad.example", "a/b"]) {
        await invalid({ customDomain: domain }, "statusPage.customDomain: must be a domain name");
      }
      await invalid({ customDomain: `${"a".repeat(64)}.example` }, "statusPage.customDomain: must be a domain name");
    });

    it("refuses the deployment's own host (PUBLIC_URL's) and RESERVED_DOMAINS as customDomain, on create and update", async () => {
      const rule = "statusPage.customDomain: is reserved by this Vigil deployment (the host of PUBLIC_URL or one of RESERVED_DOMAINS)";
      // PUBLIC_URL is https://vigil.test.
      for (const domain of ["vigil.test", "Vigil.Test.", "admin.vigil.test"]) await invalid({ customDomain: domain }, rule);
      const mine = await createPage({ customDomain: "status.vigil.test" });
      await refused(() => client.updateStatusPage({ id: mine.id, statusPage: { customDomain: "VIGIL.test" } }), Code.InvalidArgument, rule);
      await refused(() => client.updateStatusPage({ id: mine.id, statusPage: { customDomain: "admin.vigil.test" }, updateMask: mask("custom_domain") }), Code.InvalidArgument, rule);
      expect((await row(mine.id)).customDomain).toBe("status.vigil.test");
    });

    it("takes public, password or email-domain as accessType", async () => {
      await invalid({ accessType: "private" }, "statusPage.accessType: must be one of public, password, email-domain");
      expect((await createPage({ accessType: "public" })).accessType).toBe("public");
    });

    it("takes en, de, fr, es, pt or ja as language; a masked clear returns it to en", async () => {
      await invalid({ language: "xx" }, "statusPage.language: must be one of en, de, fr, es, pt, ja");
      await invalid({ language: "DE" }, "statusPage.language: must be one of en, de, fr, es, pt, ja");
      const page = await createPage({ language: "ja" });
      expect(page.language).toBe("ja");
      expect((await client.updateStatusPage({ id: page.id, statusPage: { language: "pt" } })).statusPage!.language).toBe("pt");
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { language: "klingon" } }), Code.InvalidArgument, "statusPage.language: must be one of en, de, fr, es, pt, ja");
      expect((await client.updateStatusPage({ id: page.id, updateMask: mask("language") })).statusPage!.language).toBe("en");
    });

    it("requires a password for password access, stores only its scrypt hash and never returns it", async () => {
      await invalid({ accessType: "password" }, "statusPage.password: is required when accessType is password");
      await invalid({ accessType: "password", password: "" }, "statusPage.password: is required when accessType is password");
      const page = await createPage({ accessType: "password", password: "s3cret words" });
      expect(page.accessType).toBe("password");
      expect(page.password).toBeUndefined();
      expect((await client.getStatusPage({ id: page.id })).statusPage!.password).toBeUndefined();
      expect((await client.listStatusPages({ limit: 100 })).statusPages.every((p) => p.password === undefined)).toBe(true);
      const { passwordHash } = await row(page.id);
      expect(passwordHash).toMatch(/^scrypt\$/);
      expect(passwordHash).not.toContain("s3cret");
      expect(await verifyPassword("s3cret words", passwordHash!)).toBe(true);
      expect(await verifyPassword("other", passwordHash!)).toBe(false);
    });

    it("requires valid domains for email-domain access, stored in lowercase", async () => {
      await invalid({ accessType: "email-domain" }, "statusPage.authEmailDomains: is required when accessType is email-domain");
      await invalid({ accessType: "email-domain", authEmailDomains: ["acme.example", "not a domain"] }, "statusPage.authEmailDomains[1]: must be a domain name");
      await invalid({ accessType: "email-domain", authEmailDomains: ["@acme.example"] }, "statusPage.authEmailDomains[0]: must be a domain name");
      const page = await createPage({ accessType: "email-domain", authEmailDomains: ["Acme.Example", "corp.acme.example"] });
      expect(page.authEmailDomains).toEqual(["acme.example", "corp.acme.example"]);
    });
  });

  describe("uniqueness across the deployment", () => {
    it("refuses a slug another page (of any workspace) has, with already_exists", async () => {
      const theirs = await createPage({}, otherClient);
      await refused(() => client.createStatusPage({ statusPage: { title: "t", slug: theirs.slug } }), Code.AlreadyExists, `statusPage.slug: ${theirs.slug} is already taken`);
      const mine = await createPage();
      await refused(() => client.updateStatusPage({ id: mine.id, statusPage: { slug: theirs.slug } }), Code.AlreadyExists, "statusPage.slug");
      expect((await client.updateStatusPage({ id: mine.id, statusPage: { slug: mine.slug } })).statusPage!.slug).toBe(mine.slug);
    });

    it("refuses a custom domain another page has, whatever its case, with already_exists", async () => {
      await createPage({ customDomain: "status.taken.example" }, otherClient);
      await refused(
        () => client.createStatusPage({ statusPage: { title: "t", slug: uniqueSlug(), customDomain: "STATUS.taken.example" } }),
        Code.AlreadyExists,
        "statusPage.customDomain: status.taken.example is already taken",
      );
      const mine = await createPage();
      await refused(() => client.updateStatusPage({ id: mine.id, statusPage: { customDomain: "status.taken.example" } }), Code.AlreadyExists, "statusPage.customDomain");
    });

    it("lets any number of pages have no custom domain", async () => {
      await createPage({ customDomain: "" });
      await createPage({ customDomain: "" });
      const withDomain = await createPage({ customDomain: "status.free.example" });
      const cleared = (await client.updateStatusPage({ id: withDomain.id, statusPage: { customDomain: "" } })).statusPage!;
      expect(cleared.customDomain).toBe("");
      expect((await row(withDomain.id)).customDomain).toBeNull();
      expect((await createPage({ customDomain: "status.free.example" })).customDomain).toBe("status.free.example");
    });
  });

  describe("update", () => {
    it("without updateMask changes the fields sent, an empty string included, and keeps the others", async () => {
      const page = await createPage({ description: "old", homepageUrl: "https://acme.example" });
      const updated = (await client.updateStatusPage({ id: page.id, statusPage: { title: "Renamed", description: "" } })).statusPage!;
      expect(updated).toMatchObject({ title: "Renamed", description: "", homepageUrl: "https://acme.example", slug: page.slug });
      expect((await client.getStatusPage({ id: page.id })).statusPage).toEqual(updated);
    });

    it("without updateMask keeps the domains when none are sent", async () => {
      const page = await createPage({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      const updated = (await client.updateStatusPage({ id: page.id, statusPage: { title: "x" } })).statusPage!;
      expect(updated.authEmailDomains).toEqual(["acme.example"]);
    });

    it("with updateMask changes exactly the named fields, clearing those not sent, in either spelling", async () => {
      const page = await createPage({ description: "old", homepageUrl: "https://acme.example", contactUrl: "https://acme.example/c" });
      const updated = (
        await client.updateStatusPage({ id: page.id, statusPage: { title: "Ignored", icon: "https://acme.example/i.png" }, updateMask: mask("description", "homepage_url", "icon") })
      ).statusPage!;
      expect(updated).toMatchObject({ title: "Acme", description: "", homepageUrl: "", icon: "https://acme.example/i.png", contactUrl: "https://acme.example/c" });
      const again = (await client.updateStatusPage({ id: page.id, statusPage: { contactUrl: "" }, updateMask: mask("contactUrl") })).statusPage!;
      expect(again.contactUrl).toBe("");
    });

    it("with updateMask, a named title that is not sent is refused (it cannot be empty), and accessType returns to public", async () => {
      const page = await createPage({ accessType: "password", password: "pw" });
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: {}, updateMask: mask("title") }), Code.InvalidArgument, "statusPage.title: must not be empty");
      expect((await client.updateStatusPage({ id: page.id, updateMask: mask("access_type") })).statusPage!.accessType).toBe("public");
    });

    it("refuses an updateMask naming a read-only or unknown field", async () => {
      const page = await createPage();
      for (const path of ["id", "published", "theme", "created_at", "nope"]) {
        await refused(() => client.updateStatusPage({ id: page.id, statusPage: {}, updateMask: mask(path) }), Code.InvalidArgument, `updateMask: names ${path}`);
      }
    });

    it("ignores read-only fields sent in the page", async () => {
      const page = await createPage();
      const updated = (await client.updateStatusPage({ id: page.id, statusPage: { id: "other", published: false, theme: "dark", title: "T" } })).statusPage!;
      expect(updated).toMatchObject({ id: page.id, published: true, theme: "system", title: "T" });
    });

    it("validates the fields it changes by the create's rules", async () => {
      const page = await createPage();
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { title: "t".repeat(257) } }), Code.InvalidArgument, "statusPage.title: must be at most 256");
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { slug: "api" } }), Code.InvalidArgument, "statusPage.slug: is a reserved word");
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { description: "d".repeat(1025) } }), Code.InvalidArgument, "statusPage.description");
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { icon: "icon.png" } }), Code.InvalidArgument, "statusPage.icon");
      expect((await client.updateStatusPage({ id: page.id, statusPage: { title: "t".repeat(256) } })).statusPage!.title).toHaveLength(256);
    });

    it("switches to password access only with a password sent now or stored before", async () => {
      const page = await createPage();
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { accessType: "password" } }), Code.InvalidArgument, "statusPage.password: is required when accessType is password");
      await client.updateStatusPage({ id: page.id, statusPage: { accessType: "password", password: "first" } });
      await client.updateStatusPage({ id: page.id, statusPage: { accessType: "public" } });
      // The stored password is kept while the page is public, and serves again.
      const back = (await client.updateStatusPage({ id: page.id, statusPage: { accessType: "password" } })).statusPage!;
      expect(back.accessType).toBe("password");
      expect(await verifyPassword("first", (await row(page.id)).passwordHash!)).toBe(true);
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { password: "" } }), Code.InvalidArgument, "statusPage.password: is required");
    });

    it("switches to email-domain access only with domains sent now or stored before", async () => {
      const page = await createPage();
      await refused(() => client.updateStatusPage({ id: page.id, statusPage: { accessType: "email-domain" } }), Code.InvalidArgument, "statusPage.authEmailDomains: is required");
      await refused(
        () => client.updateStatusPage({ id: page.id, statusPage: { accessType: "email-domain", authEmailDomains: ["bad domain"] } }),
        Code.InvalidArgument,
        "statusPage.authEmailDomains[0]: must be a domain name",
      );
      await client.updateStatusPage({ id: page.id, statusPage: { accessType: "email-domain", authEmailDomains: ["acme.example"] } });
      await client.updateStatusPage({ id: page.id, statusPage: { accessType: "public" } });
      expect((await client.updateStatusPage({ id: page.id, statusPage: { accessType: "email-domain" } })).statusPage!.authEmailDomains).toEqual(["acme.example"]);
      await refused(
        () => client.updateStatusPage({ id: page.id, updateMask: mask("authEmailDomains") }),
        Code.InvalidArgument,
        "statusPage.authEmailDomains: is required when accessType is email-domain",
      );
    });

    it("moves accessVersion whenever who may read the page changes, and only then", async () => {
      const page = await createPage();
      const version = async () => (await row(page.id)).accessVersion;
      const update = (statusPage: PageInit, paths?: string[]) => client.updateStatusPage({ id: page.id, statusPage, updateMask: paths && mask(...paths) });

      await update({ title: "x", description: "y" });
      expect(await version()).toBe(0);
      await update({ accessType: "password", password: "one" });
      expect(await version()).toBe(1);
      await update({ password: "one" });
      expect(await version()).toBe(1);
      const hash = (await row(page.id)).passwordHash;
      await update({ password: "two" });
      expect(await version()).toBe(2);
      expect((await row(page.id)).passwordHash).not.toBe(hash);
      await update({ accessType: "password" });
      expect(await version()).toBe(2);
      await update({ accessType: "email-domain", authEmailDomains: ["acme.example"] });
      expect(await version()).toBe(3);
      await update({ authEmailDomains: ["ACME.example"] });
      expect(await version()).toBe(3);
      await update({ authEmailDomains: ["acme.example", "corp.example"] });
      expect(await version()).toBe(4);
      await update({ accessType: "public" });
      expect(await version()).toBe(5);
      await update({ title: "z" }, ["title"]);
      expect(await version()).toBe(5);
    });

    it("answers the page unchanged when nothing is sent", async () => {
      const page = await createPage();
      expect((await client.updateStatusPage({ id: page.id })).statusPage).toEqual(page);
    });

    it("answers not_found for an unknown page or one of another workspace, and invalid_argument without id", async () => {
      const theirs = await createPage({}, otherClient);
      await refused(() => client.updateStatusPage({ id: theirs.id, statusPage: { title: "mine" } }), Code.NotFound, "not found");
      await refused(() => client.updateStatusPage({ id: "0190f000-0000-7000-8000-000000000000", statusPage: { title: "x" } }), Code.NotFound, "not found");
      await refused(() => client.updateStatusPage({ id: "", statusPage: { title: "x" } }), Code.InvalidArgument, "id: is required");
    });
  });

  describe("over Connect JSON", () => {
    const post = (method: string, body: unknown) =>
      api.fetch(`/status_page.v1.StatusPageService/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": writeKey },
        body: JSON.stringify(body),
      });

    it("writes no password key, takes updateMask as a string, and answers 400 and 409 for refused writes", async () => {
      const created = await post("CreateStatusPage", { statusPage: { title: "Json", slug: "json-page", accessType: "password", password: "pw", homepageUrl: "https://a.example" } });
      expect(created.status).toBe(200);
      const { statusPage } = await jsonOf(created);
      expect(statusPage).toMatchObject({ title: "Json", accessType: "password", published: true, theme: "system", authEmailDomains: [] });
      expect(Object.keys(statusPage)).not.toContain("password");

      const updated = await jsonOf(await post("UpdateStatusPage", { id: statusPage.id, statusPage: { title: "New" }, updateMask: "title,homepageUrl" }));
      expect(updated.statusPage).toMatchObject({ title: "New", homepageUrl: "" });
      expect(Object.keys(updated.statusPage)).not.toContain("password");

      const invalid = await post("CreateStatusPage", { statusPage: { title: "x", slug: "Bad Slug" } });
      expect([invalid.status, (await jsonOf(invalid)).code]).toEqual([400, "invalid_argument"]);
      const taken = await post("CreateStatusPage", { statusPage: { title: "x", slug: "json-page" } });
      expect([taken.status, await jsonOf(taken)]).toEqual([409, { code: "already_exists", message: "statusPage.slug: json-page is already taken by another page" }]);
    });
  });

  describe("publish and unpublish", () => {
    it("change published, idempotently", async () => {
      const page = await createPage();
      expect((await client.unpublishStatusPage({ id: page.id })).statusPage!.published).toBe(false);
      expect((await client.unpublishStatusPage({ id: page.id })).statusPage!.published).toBe(false);
      expect((await client.getStatusPage({ id: page.id })).statusPage!.published).toBe(false);
      expect((await client.publishStatusPage({ id: page.id })).statusPage!.published).toBe(true);
      expect((await client.publishStatusPage({ id: page.id })).statusPage!.published).toBe(true);
    });

    it("answer not_found for another workspace's page", async () => {
      const theirs = await createPage({}, otherClient);
      expect(await codeOf(client.unpublishStatusPage({ id: theirs.id }))).toBe(Code.NotFound);
      expect(await codeOf(client.publishStatusPage({ id: theirs.id }))).toBe(Code.NotFound);
      expect((await otherClient.getStatusPage({ id: theirs.id })).statusPage!.published).toBe(true);
    });
  });

  describe("get, list and delete", () => {
    it("lists the workspace's pages in creation order, with limit, offset and total_size", async () => {
      const c = api.statusPageClient((await api.workspace()).write.key);
      const created = [];
      for (let i = 0; i < 3; i++) created.push(await createPage({ title: `p${i}` }, c));
      const all = await c.listStatusPages({});
      expect(all.statusPages.map((p) => p.id)).toEqual(created.map((p) => p.id));
      expect(all.totalSize).toBe(3);
      const second = await c.listStatusPages({ limit: 1, offset: 1 });
      expect(second.statusPages.map((p) => p.id)).toEqual([created[1]!.id]);
      expect(second.totalSize).toBe(3);
      expect((await c.listStatusPages({ limit: 100, offset: 3 })).statusPages).toEqual([]);
    });

    it("takes limit 1 to 100 and offset of 0 or more", async () => {
      expect(await codeOf(client.listStatusPages({ limit: 1 }))).toBe("ok");
      expect(await codeOf(client.listStatusPages({ limit: 100 }))).toBe("ok");
      await refused(() => client.listStatusPages({ limit: 0 }), Code.InvalidArgument, "limit: must be an integer from 1 to 100");
      await refused(() => client.listStatusPages({ limit: 101 }), Code.InvalidArgument, "limit: must be an integer from 1 to 100");
      await refused(() => client.listStatusPages({ offset: -1 }), Code.InvalidArgument, "offset");
    });

    it("gets only the workspace's own pages", async () => {
      const theirs = await createPage({}, otherClient);
      await refused(() => client.getStatusPage({ id: theirs.id }), Code.NotFound, `status page ${theirs.id} not found`);
      await refused(() => client.getStatusPage({ id: "" }), Code.InvalidArgument, "id: is required");
      expect((await client.listStatusPages({ limit: 100 })).statusPages.map((p) => p.id)).not.toContain(theirs.id);
    });

    it("deletes a page with its components and groups; a second delete is not_found", async () => {
      const page = await createPage();
      const { group } = await client.createStatusPageComponentGroup({ group: { pageId: page.id, name: "Core" } });
      await client.createStatusPageComponent({ component: { pageId: page.id, type: "static", name: "Website", groupId: group!.id } });
      expect(await client.deleteStatusPage({ id: page.id })).toMatchObject({ success: true });
      await refused(() => client.getStatusPage({ id: page.id }), Code.NotFound, "not found");
      await refused(() => client.deleteStatusPage({ id: page.id }), Code.NotFound, "not found");
      expect(await api.db.prisma.statusPageComponent.count({ where: { pageId: page.id } })).toBe(0);
      expect(await api.db.prisma.statusPageComponentGroup.count({ where: { pageId: page.id } })).toBe(0);
    });

    it("does not delete another workspace's page", async () => {
      const theirs = await createPage({}, otherClient);
      await refused(() => client.deleteStatusPage({ id: theirs.id }), Code.NotFound, "not found");
      expect((await otherClient.getStatusPage({ id: theirs.id })).statusPage!.id).toBe(theirs.id);
    });
  });
});

describe("change notices for the public pages", () => {
  it("tells its Changes about every successful write of a page, its components and groups, and about nothing else", async () => {
    const db = await openTestDatabase("pglite");
    try {
      const workspace = await db.prisma.workspace.create({ data: { name: "W", slug: "w" } });
      const pageChanges = new Changes();
      const published: string[] = [];
      pageChanges.subscribe((pageId) => published.push(pageId));
      const service = statusPageService(new StatusPageRepository(db.prisma), pageChanges, new Set());
      const ctx = createHandlerContext({
        service: StatusPageService,
        method: StatusPageService.method.createStatusPage,
        protocolName: "connect",
        requestMethod: "POST",
        url: "http://127.0.0.1/",
        contextValues: createContextValues().set(actorKey, { type: "apiKey", keyId: "k", scopes: ["write"], workspace }),
      });
      type Request<M extends keyof typeof service> = Parameters<(typeof service)[M]>[0];
      const call = async <M extends keyof typeof service>(method: M, req: Omit<Request<M>, "$typeName">) => {
        const before = published.length;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const res: any = await (service[method] as any)(create(StatusPageService.method[method].input, req as never), ctx);
        return { res, notices: published.slice(before) };
      };

      const { res: created, notices: onCreate } = await call("createStatusPage", { statusPage: { title: "t", slug: "notices" } as never });
      const pageId: string = created.statusPage.id;
      expect(onCreate).toEqual([pageId]);
      for (const [method, req] of [
        ["updateStatusPage", { id: pageId, statusPage: { title: "u" } }],
        ["unpublishStatusPage", { id: pageId }],
        ["publishStatusPage", { id: pageId }],
      ] as const) {
        expect((await call(method, req as never)).notices).toEqual([pageId]);
      }
      const { res: group, notices: onGroup } = await call("createStatusPageComponentGroup", { group: { pageId, name: "g" } as never });
      expect(onGroup).toEqual([pageId]);
      const { res: component, notices: onComponent } = await call("createStatusPageComponent", { component: { pageId, type: "static" } as never });
      expect(onComponent).toEqual([pageId]);
      const ids = { pageId, componentId: component.component.id as string, groupId: group.group.id as string };
      expect((await call("updateStatusPageComponent", { pageId, id: ids.componentId, component: { name: "c" } } as never)).notices).toEqual([pageId]);
      expect((await call("updateStatusPageComponentGroup", { pageId, id: ids.groupId, group: { name: "h" } } as never)).notices).toEqual([pageId]);
      const { res: incident, notices: onIncident } = await call("createStatusPageIncident", {
        incident: { pageId, title: "t", status: "investigating", message: "m", components: [{ componentId: ids.componentId, impact: "major_outage" }] } as never,
      });
      expect(onIncident).toEqual([pageId]);
      const incidentId: string = incident.incident.id;
      expect((await call("addStatusPageIncidentUpdate", { incidentId, status: "resolved", message: "m" } as never)).notices).toEqual([pageId]);
      expect((await call("updateStatusPageIncident", { id: incidentId, incident: { postmortem: "p" } } as never)).notices).toEqual([pageId]);
      for (const [method, req] of [
        ["getStatusPage", { id: pageId }],
        ["listStatusPages", {}],
        ["getStatusPageComponent", { pageId, id: ids.componentId }],
        ["listStatusPageComponents", { pageId }],
        ["getStatusPageComponentGroup", { pageId, id: ids.groupId }],
        ["listStatusPageComponentGroups", { pageId }],
        ["getStatusPageIncident", { id: incidentId }],
        ["listStatusPageIncidents", { pageId }],
      ] as const) {
        expect((await call(method, req as never)).notices).toEqual([]);
      }
      await expect(call("updateStatusPage", { id: pageId, statusPage: { title: "" } } as never)).rejects.toThrow("statusPage.title");
      expect((await call("deleteStatusPageIncident", { id: incidentId } as never)).notices).toEqual([pageId]);
      expect((await call("deleteStatusPageComponent", { pageId, id: ids.componentId } as never)).notices).toEqual([pageId]);
      expect((await call("deleteStatusPageComponentGroup", { pageId, id: ids.groupId } as never)).notices).toEqual([pageId]);
      expect((await call("deleteStatusPage", { id: pageId } as never)).notices).toEqual([pageId]);
      expect(new Set(published)).toEqual(new Set([pageId]));
    } finally {
      await db.dispose();
    }
  });
});

describe("RESERVED_DOMAINS", () => {
  it("is a comma list of domain names, none by default; anything else stops the control plane naming it", () => {
    expect(loadConfig({}).reservedDomains).toEqual([]);
    expect(loadConfig({ RESERVED_DOMAINS: "admin.vigil.example, Vigil-Internal.example." }).reservedDomains).toEqual(["admin.vigil.example", "Vigil-Internal.example."]);
    for (const value of ["https://admin.vigil.example", "admin.vigil.example:443", "192.0.2.1", "a b"]) {
      expect(() => loadConfig({ RESERVED_DOMAINS: value })).toThrow("RESERVED_DOMAINS: must be a comma-separated list of domain names");
    }
  });
});
