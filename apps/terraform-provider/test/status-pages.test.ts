import { secretFingerprint } from "@vigil/domain";
import { terraformTests } from "./support/terraform.js";

interface Setup {
  title?: string;
  password?: string;
  groupName?: string;
  /** The page of the group and the grouped component: `main` or `other`. */
  groupPage?: "main" | "other";
  /** The type of the `note` component, and its monitor. */
  noteType?: "static" | "monitor";
  apiComponentName?: string;
  customDomain?: string;
}

/**
 * A password page with a custom domain in mixed case (stored lowercase), a
 * public page, a group and two components: one showing a TCP monitor of the
 * same configuration, in the group, and a static one; and the page's data source.
 */
const configuration = ({ title = "Acme status", password = "s3cret", groupName = "Backend", groupPage = "main", noteType = "static", apiComponentName = "API", customDomain = "Status.Acme.example.com" }: Setup = {}) => `
resource "service_tcp_monitor" "db" {
  name        = "Database"
  uri         = "db.example.com:5432"
  periodicity = "1m"
}

resource "service_status_page" "main" {
  title              = "${title}"
  slug               = "acme"
  description        = "Our services"
  homepage_url       = "https://acme.example.com"
  custom_domain      = "${customDomain}"
  access_type        = "password"
  password           = "${password}"
  language           = "fr"
}

resource "service_status_page" "other" {
  title                 = "Acme internal"
  slug                  = "acme-internal"
  subscriptions_enabled = false
}

resource "service_status_page_component_group" "backend" {
  page_id = service_status_page.${groupPage}.id
  name    = "${groupName}"
}

resource "service_status_page_component" "api" {
  page_id     = service_status_page.${groupPage}.id
  type        = "monitor"
  monitor_id  = service_tcp_monitor.db.id
  name        = "${apiComponentName}"
  group_id    = service_status_page_component_group.backend.id
  group_order = 2
}

resource "service_status_page_component" "note" {
  page_id = service_status_page.main.id
  type    = "${noteType}"
  name    = "Support desk"
  order   = 5${noteType === "monitor" ? "\n  monitor_id = service_tcp_monitor.db.id" : ""}
}

data "service_status_page" "main" {
  id = service_status_page.main.id
}
`;

const fx = terraformTests();

const pages = () => fx.api.statusPageClient(fx.ws.write.key);

describe("status pages, components and groups with terraform", () => {
  const tf = fx.folder();
  const ids: Record<string, string> = {};
  const write = (setup?: Setup) => tf.configure(configuration(setup));
  const idOf = async (address: string) => String((await tf.stateOf(address))?.id);
  const rememberIds = async () => {
    for (const address of ["service_status_page.main", "service_status_page.other", "service_status_page_component_group.backend", "service_status_page_component.api", "service_status_page_component.note", "service_tcp_monitor.db"]) {
      ids[address] = await idOf(address);
    }
  };

  it("creates the page, its group and components, and a second plan shows no changes", async () => {
    await write();
    await tf.apply();
    await rememberIds();
    const pageId = ids["service_status_page.main"]!;
    const { statusPage } = await pages().getStatusPage({ id: pageId });
    expect(statusPage).toMatchObject({
      title: "Acme status",
      slug: "acme",
      description: "Our services",
      homepageUrl: "https://acme.example.com",
      contactUrl: "",
      customDomain: "status.acme.example.com",
      accessType: "password",
      authEmailDomains: [],
      passwordFingerprint: secretFingerprint(pageId, "s3cret"),
    });
    const { components } = await pages().listStatusPageComponents({ pageId });
    expect(components).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "monitor", monitorId: ids["service_tcp_monitor.db"], name: "API", groupId: ids["service_status_page_component_group.backend"], groupOrder: 2 }),
        expect.objectContaining({ type: "static", monitorId: "", name: "Support desk", order: 5 }),
      ]),
    );
    const { groups } = await pages().listStatusPageComponentGroups({ pageId });
    expect(groups).toEqual([expect.objectContaining({ name: "Backend" })]);

    expect(await tf.stateOf("service_status_page.main")).toMatchObject({
      custom_domain: "Status.Acme.example.com",
      password: "s3cret",
      published: true,
      theme: "system",
      language: "fr",
      contact_url: "",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await tf.stateOf("service_status_page.other")).toMatchObject({ access_type: "public", password: null, custom_domain: "", auth_email_domains: [], language: "en" });
    expect(await tf.stateOf("service_status_page_component.note")).toMatchObject({ monitor_id: "", group_id: "", group_order: 0 });
    await tf.plan(0);
  });

  it("reads the page with the data source, never its password", async () => {
    expect(await tf.stateOf("data.service_status_page.main")).toMatchObject({
      id: ids["service_status_page.main"],
      title: "Acme status",
      slug: "acme",
      custom_domain: "status.acme.example.com",
      access_type: "password",
      password: null,
      auth_email_domains: [],
      published: true,
      theme: "system",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("updates in place, the password included, keeping every id", async () => {
    await write({ title: "Acme", password: "n3w-secret", groupName: "Core", apiComponentName: "Public API" });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_status_page.main will be updated in-place");
    expect(plan.stdout).toContain("service_status_page_component_group.backend will be updated in-place");
    expect(plan.stdout).toContain("service_status_page_component.api will be updated in-place");
    expect(plan.stdout).not.toContain("must be replaced");
    await tf.apply();
    const before = { ...ids };
    await rememberIds();
    expect(ids).toEqual(before);
    const pageId = ids["service_status_page.main"]!;
    expect((await pages().getStatusPage({ id: pageId })).statusPage).toMatchObject({ title: "Acme", passwordFingerprint: secretFingerprint(pageId, "n3w-secret") });
    const group = await pages().getStatusPageComponentGroup({ pageId, id: ids["service_status_page_component_group.backend"]! });
    expect(group.group?.name).toBe("Core");
    await tf.plan(0);
  });

  it("shows fields and a password changed outside Terraform as drift, and puts them back", async () => {
    const pageId = ids["service_status_page.main"]!;
    await pages().updateStatusPage({ id: pageId, statusPage: { title: "Hand-made", password: "by-hand" } });
    await pages().updateStatusPageComponent({ pageId, id: ids["service_status_page_component.note"]!, component: { name: "Renamed" } });
    await pages().updateStatusPageComponentGroup({ pageId, id: ids["service_status_page_component_group.backend"]!, group: { name: "Regrouped" } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ title\s+= "Hand-made" -> "Acme"/);
    expect(plan.stdout).toMatch(/~ password\s+= \(sensitive value\)/);
    expect(plan.stdout).toMatch(/~ name\s+= "Renamed" -> "Support desk"/);
    expect(plan.stdout).toMatch(/~ name\s+= "Regrouped" -> "Core"/);
    await tf.apply();
    expect((await pages().getStatusPage({ id: pageId })).statusPage).toMatchObject({ title: "Acme", passwordFingerprint: secretFingerprint(pageId, "n3w-secret") });
    await tf.plan(0);

    // A password removed outside Terraform is drift too.
    await pages().updateStatusPage({ id: pageId, statusPage: { accessType: "public", password: "" } });
    expect((await tf.plan(2)).stdout).toMatch(/\+ password\s+= \(sensitive value\)/);
    await tf.apply();
    expect((await pages().getStatusPage({ id: pageId })).statusPage?.passwordFingerprint).toBe(secretFingerprint(pageId, "n3w-secret"));
  });

  it("turns a page's subscriptions off, and shows them turned on outside Terraform as drift", async () => {
    const other = ids["service_status_page.other"]!;
    expect((await pages().getStatusPage({ id: other })).statusPage?.subscriptionsEnabled).toBe(false);
    expect((await pages().getStatusPage({ id: ids["service_status_page.main"]! })).statusPage?.subscriptionsEnabled).toBe(true);
    await pages().updateStatusPage({ id: other, statusPage: { subscriptionsEnabled: true } });
    expect((await tf.plan(2)).stdout).toMatch(/~ subscriptions_enabled\s+= true -> false/);
    await tf.apply();
    expect((await pages().getStatusPage({ id: other })).statusPage?.subscriptionsEnabled).toBe(false);
    await tf.plan(0);
  });

  it("replaces a component whose type changes, and a group and component moved to another page, and nothing else", async () => {
    await write({ title: "Acme", password: "n3w-secret", groupName: "Core", apiComponentName: "Public API", groupPage: "other", noteType: "monitor" });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/service_status_page_component\.note must be replaced/);
    expect(plan.stdout).toMatch(/~ type\s+= "static" -> "monitor" # forces replacement/);
    expect(plan.stdout).toMatch(/service_status_page_component_group\.backend must be replaced/);
    expect(plan.stdout).toMatch(/service_status_page_component\.api must be replaced/);
    expect(plan.stdout).toMatch(/~ page_id\s+= "[^"]+" -> "[^"]+" # forces replacement/);
    expect(plan.stdout).toContain("Plan: 3 to add, 0 to change, 3 to destroy.");
    await tf.apply();
    const otherId = await idOf("service_status_page.other");
    const { components } = await pages().listStatusPageComponents({ pageId: otherId });
    expect(components).toEqual([expect.objectContaining({ name: "Public API", groupId: await idOf("service_status_page_component_group.backend") })]);
    expect(await idOf("service_status_page_component.note")).not.toBe(ids["service_status_page_component.note"]);
    await tf.plan(0);
    await write({ title: "Acme", password: "n3w-secret", groupName: "Core", apiComponentName: "Public API" });
    await tf.apply();
    await rememberIds();
  });

  it("imports pages, groups and components: a public page's import plans clean, a password page's shows only the password", async () => {
    // The API stores host names in lowercase: an import reads them so (see the plan-after-create test for the configuration's own spelling).
    await write({ title: "Acme", password: "n3w-secret", groupName: "Core", apiComponentName: "Public API", customDomain: "status.acme.example.com" });
    const page = ids["service_status_page.main"]!;
    for (const address of ["service_status_page.main", "service_status_page.other"]) await tf.reimport(address, ids[address]!);
    for (const address of ["service_status_page_component_group.backend", "service_status_page_component.api", "service_status_page_component.note"]) {
      await tf.reimport(address, `${page}/${ids[address]}`);
    }
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    const pageChange = plan.stdout.split("# service_status_page.main will be updated in-place")[1]?.split("\n\n")[0] ?? "";
    // The password, and updated_at, which any update changes.
    expect(pageChange.match(/^\s+[~+-] \w+/gm)?.map((line) => line.trim())).toEqual(["~ resource", "~ password", "~ updated_at"]);
    await tf.apply();
    await tf.plan(0);
  });

  it("refuses a malformed import id of a component or a group, saying what it expects", async () => {
    await tf.expectExit(0, "state rm", "service_status_page_component.note");
    const { stderr } = await tf.expectExit(1, "import", "service_status_page_component.note", ids["service_status_page_component.note"]!);
    expect(stderr).toContain("Invalid import id");
    expect(stderr).toContain("expected <page_id>/<component_id>");
    await tf.expectExit(0, "state rm", "service_status_page_component_group.backend");
    const group = await tf.expectExit(1, "import", "service_status_page_component_group.backend", "a/b/c");
    expect(group.stderr).toContain('expected <page_id>/<group_id>, got "a/b/c"');
    const page = ids["service_status_page.main"]!;
    await tf.expectExit(0, "import", "service_status_page_component.note", `${page}/${ids["service_status_page_component.note"]}`);
    await tf.expectExit(0, "import", "service_status_page_component_group.backend", `${page}/${ids["service_status_page_component_group.backend"]}`);
  });

  it("plans to create again what was deleted outside Terraform", async () => {
    const pageId = ids["service_status_page.main"]!;
    await pages().deleteStatusPageComponent({ pageId, id: ids["service_status_page_component.note"]! });
    await pages().deleteStatusPage({ id: ids["service_status_page.other"]! });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_status_page_component.note will be created");
    expect(plan.stdout).toContain("service_status_page.other will be created");
    await tf.apply();
    const { components } = await pages().listStatusPageComponents({ pageId });
    expect(components.map((c) => c.name).sort()).toEqual(["Public API", "Support desk"]);
    await tf.plan(0);
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    const { statusPages, totalSize } = await pages().listStatusPages({});
    expect({ statusPages, totalSize }).toEqual({ statusPages: [], totalSize: 0 });
    expect((await fx.client().listMonitors({})).totalSize).toBe(0);
  });
});

describe("service_status_page import block with -generate-config-out", () => {
  const tf = fx.folder();

  it("writes a configuration whose apply then plans clean", async () => {
    const { statusPage } = await pages().createStatusPage({
      statusPage: { title: "Generated", slug: "generated", contactUrl: "https://example.com/contact", authEmailDomains: ["example.com"], accessType: "email-domain" },
    });
    await tf.configure(`
import {
  to = service_status_page.generated
  id = "${statusPage?.id}"
}
`);
    const generate = await tf.expectExit(0, "plan", "-generate-config-out=generated.tf");
    expect(generate.stdout).toContain("1 to import, 0 to add, 0 to change, 0 to destroy");
    await tf.apply();
    await tf.plan(0);
    expect(await tf.stateOf("service_status_page.generated")).toMatchObject({ id: statusPage?.id, access_type: "email-domain", auth_email_domains: ["example.com"] });
    await pages().deleteStatusPage({ id: statusPage!.id });
  });
});

describe("status page errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of each bad value", async () => {
    await tf.configure(`
resource "service_status_page" "bad" {
  title       = "Bad"
  slug        = "Not A Slug"
  access_type = "password"
  icon        = "ftp://example.com/icon.png"
}

resource "service_status_page" "reserved" {
  title       = "Reserved"
  slug        = "admin"
  access_type = "email-domain"
}

resource "service_status_page_component" "bad" {
  page_id    = "p"
  type       = "static"
  monitor_id = "m"
}

resource "service_status_page_component" "unknown_type" {
  page_id = "p"
  type    = "chart"
}

resource "service_status_page_component_group" "bad" {
  page_id = "p"
  name    = ""
}
`);
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for slug");
    expect(stderr).toContain("slug must be lowercase letters, digits and single hyphens");
    expect(stderr).toContain("slug is a reserved word");
    expect(stderr).toContain("Invalid value for icon");
    expect(stderr).toContain("password is required when accessType is password");
    expect(stderr).toContain("auth_email_domains is required when accessType is email-domain");
    expect(stderr).toContain("monitor_id must be empty when type is static");
    expect(stderr).toContain("Invalid value for type");
    expect(stderr).toContain("Invalid value for name");
  });

  it("shows the server's refusal of a reserved custom domain at apply, on the attribute", async () => {
    // PUBLIC_URL of the test server is https://vigil.test: its host is no page's to take.
    await tf.configure(`
resource "service_status_page" "own" {
  title         = "Own"
  slug          = "own-host"
  custom_domain = "vigil.test"
}
`);
    const { stderr } = await tf.expectExit(1, "apply", "-auto-approve");
    expect(stderr).toContain("Invalid value for custom_domain");
    expect(stderr.replace(/\s+/g, " ")).toContain("custom_domain is reserved by this Vigil deployment (the host of PUBLIC_URL or one of RESERVED_DOMAINS)");
  });
});
