import {
  ACCESS_TYPES,
  DEFAULT_ACCESS_TYPE,
  PAGE_LANGUAGES,
  PAGE_LANGUAGE_NAMES,
  PAGE_THEME,
  RESERVED_SLUGS,
  ValidationError,
  checkComponentMonitor,
  checkPageAccess,
  componentMonitorViolations,
  componentReferenceViolations,
  pageAccessViolations,
  parseComponent,
  parseComponentChanges,
  parseGroupName,
  parseStatusPage,
  parseStatusPageChanges,
} from "../src";

/** The violations a call throws, as `field: rule` lines; [] when it passes. */
function violations(call: () => unknown): string[] {
  try {
    call();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.violations.map((v) => `${v.field}: ${v.rule}`);
  }
}

const page = (fields: Record<string, unknown>) => parseStatusPage({ title: "Acme", slug: "acme", ...fields });
const pageViolations = (fields: Record<string, unknown>) => violations(() => page(fields));
/** A domain of exactly `length` characters (252 to 255): three labels of 63 and one to fill. */
const domainOf = (length: number) => `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(length - 192)}`;

describe("status page fields", () => {
  it("fills in the defaults of a page that sends only title and slug", () => {
    expect(page({})).toEqual({
      title: "Acme",
      slug: "acme",
      description: "",
      homepageUrl: "",
      contactUrl: "",
      icon: "",
      customDomain: "",
      accessType: "public",
      password: "",
      authEmailDomains: [],
      language: "en",
      subscriptionsEnabled: true,
    });
    expect(DEFAULT_ACCESS_TYPE).toBe("public");
    expect(PAGE_THEME).toBe("system");
    expect(ACCESS_TYPES).toEqual(["public", "password", "email-domain"]);
  });

  it("takes a page language among en, de, fr, es, pt and ja, each named in itself", () => {
    expect(PAGE_LANGUAGES).toEqual(["en", "de", "fr", "es", "pt", "ja"]);
    expect(page({ language: "ja" }).language).toBe("ja");
    expect(() => page({ language: "jp" })).toThrow("statusPage.language: must be one of en, de, fr, es, pt, ja");
    expect(Object.keys(PAGE_LANGUAGE_NAMES)).toEqual([...PAGE_LANGUAGES]);
    expect(PAGE_LANGUAGE_NAMES.de).toBe("Deutsch");
  });

  it("requires title and slug", () => {
    expect(violations(() => parseStatusPage({}))).toEqual(["statusPage.title: is required", "statusPage.slug: is required"]);
  });

  it("takes a title of 1 to 256 characters", () => {
    expect(page({ title: "t" }).title).toBe("t");
    expect(page({ title: "t".repeat(256) }).title).toHaveLength(256);
    expect(pageViolations({ title: "" })).toEqual(["statusPage.title: must not be empty"]);
    expect(pageViolations({ title: "t".repeat(257) })).toEqual(["statusPage.title: must be at most 256 characters"]);
    expect(pageViolations({ title: 5 })).toEqual(["statusPage.title: must be a string"]);
  });

  describe("slug", () => {
    const slugRule = "statusPage.slug: must be lowercase letters, digits and single hyphens, neither first nor last";

    it("takes 1 to 256 characters", () => {
      expect(page({ slug: "a" }).slug).toBe("a");
      expect(page({ slug: "a".repeat(256) }).slug).toHaveLength(256);
      expect(pageViolations({ slug: "a".repeat(257) })).toEqual(["statusPage.slug: must be at most 256 characters"]);
      expect(pageViolations({ slug: "" })).toContain("statusPage.slug: must not be empty");
    });

    it.each(["acme", "acme-status", "a-1-b", "2024", "x9"])("takes %s", (slug) => expect(page({ slug }).slug).toBe(slug));

    it.each(["Acme", "acme--status", "-acme", "acme-", "-", "acme_status", "acme.status", "acme status", "acmé", "acme/x"])("refuses %s", (slug) => {
      expect(pageViolations({ slug })).toEqual([slugRule]);
    });

    it.each([...RESERVED_SLUGS])("refuses the reserved word %s", (slug) => {
      expect(pageViolations({ slug })).toEqual(["statusPage.slug: is a reserved word"]);
    });

    it("takes words that only contain a reserved word", () => {
      expect(page({ slug: "api-status" }).slug).toBe("api-status");
      expect(page({ slug: "statuses" }).slug).toBe("statuses");
    });
  });

  it("takes a description of at most 1024 characters", () => {
    expect(page({ description: "d".repeat(1024) }).description).toHaveLength(1024);
    expect(pageViolations({ description: "d".repeat(1025) })).toEqual(["statusPage.description: must be at most 1024 characters"]);
  });

  describe.each(["homepageUrl", "contactUrl", "icon"])("%s", (field) => {
    it.each(["https://acme.example", "http://acme.example/path?q=1", "https://acme.example:8443/x.png", ""])("takes %p", (url) => {
      expect(page({ [field]: url })[field as "icon"]).toBe(url);
    });

    it.each(["acme.example", "/relative", "ftp://acme.example", "mailto:ops@acme.example", "https://", "javascript:alert(1)"])("refuses %p", (url) => {
      expect(pageViolations({ [field]: url })).toEqual([`statusPage.${field}: must be an absolute http:// or https:// URL`]);
    });

    it("takes up to 2048 characters", () => {
      const url = (length: number) => `https://acme.example/${"p".repeat(length - "https://acme.example/".length)}`;
      expect(page({ [field]: url(2048) })[field as "icon"]).toHaveLength(2048);
      expect(pageViolations({ [field]: url(2049) })).toEqual([`statusPage.${field}: must be at most 2048 characters`]);
    });
  });

  describe("customDomain", () => {
    const rule = "statusPage.customDomain: must be a domain name (labels of letters, digits, - and _)";

    it("takes a host name, in lowercase and without a final dot, or nothing", () => {
      expect(page({ customDomain: "Status.Acme.Example" }).customDomain).toBe("status.acme.example");
      expect(page({ customDomain: "status.acme.example." }).customDomain).toBe("status.acme.example");
      expect(page({ customDomain: "localhost" }).customDomain).toBe("localhost");
      expect(page({ customDomain: "" }).customDomain).toBe("");
    });

    it("takes up to 253 characters and labels of up to 63", () => {
      expect(page({ customDomain: domainOf(253) }).customDomain).toHaveLength(253);
      expect(pageViolations({ customDomain: domainOf(254) })).not.toEqual([]);
      expect(page({ customDomain: `${"a".repeat(63)}.example` }).customDomain).toBe(`${"a".repeat(63)}.example`);
      expect(pageViolations({ customDomain: `${"a".repeat(64)}.example` })).toEqual([rule]);
    });

    it.each(["https://status.acme.example", "status acme", "192.0.2.1", "-bad.example", "bad-.example", "a/b", "a..b", "status.acme.example:8080"])(
      "refuses %p",
      (customDomain) => expect(pageViolations({ customDomain })).toEqual([rule]),
    );
  });

  it("takes public, password or email-domain as accessType", () => {
    for (const accessType of ACCESS_TYPES) expect(parseStatusPageChanges({ accessType }).accessType).toBe(accessType);
    expect(pageViolations({ accessType: "private" })).toEqual(["statusPage.accessType: must be one of public, password, email-domain"]);
    expect(pageViolations({ accessType: "" })).toEqual(["statusPage.accessType: must be one of public, password, email-domain"]);
  });

  it("takes a password of at most 1024 characters", () => {
    expect(page({ password: "p".repeat(1024) }).password).toHaveLength(1024);
    expect(pageViolations({ password: "p".repeat(1025) })).toEqual(["statusPage.password: must be at most 1024 characters"]);
  });

  it("takes up to 50 valid domains as authEmailDomains, in lowercase", () => {
    expect(page({ authEmailDomains: ["Acme.Example", "corp.acme.example"] }).authEmailDomains).toEqual(["acme.example", "corp.acme.example"]);
    const fifty = Array.from({ length: 50 }, (_, i) => `d${i}.example`);
    expect(page({ authEmailDomains: fifty }).authEmailDomains).toHaveLength(50);
    expect(pageViolations({ authEmailDomains: [...fifty, "one.more.example"] })).toEqual(["statusPage.authEmailDomains: must have at most 50 entries"]);
    expect(pageViolations({ authEmailDomains: ["acme.example", "@acme.example", "not a domain"] })).toEqual([
      "statusPage.authEmailDomains[1]: must be a domain name (labels of letters, digits, - and _)",
      "statusPage.authEmailDomains[2]: must be a domain name (labels of letters, digits, - and _)",
    ]);
    expect(pageViolations({ authEmailDomains: [""] })).toContain("statusPage.authEmailDomains[0]: must not be empty");
  });

  it("reports every broken field at once", () => {
    expect(pageViolations({ title: "", slug: "API", icon: "x" })).toEqual([
      "statusPage.title: must not be empty",
      "statusPage.slug: must be lowercase letters, digits and single hyphens, neither first nor last",
      "statusPage.icon: must be an absolute http:// or https:// URL",
    ]);
  });

  it("validates only the fields an update changes, without defaults", () => {
    expect(parseStatusPageChanges({ description: "" })).toEqual({ description: "" });
    expect(parseStatusPageChanges({})).toEqual({});
    expect(violations(() => parseStatusPageChanges({ title: "" }))).toEqual(["statusPage.title: must not be empty"]);
    expect(violations(() => parseStatusPageChanges({ slug: "admin" }))).toEqual(["statusPage.slug: is a reserved word"]);
    expect(parseStatusPageChanges({ customDomain: "A.Example" })).toEqual({ customDomain: "a.example" });
  });
});

describe("page access rules", () => {
  const access = (accessType: (typeof ACCESS_TYPES)[number], hasPassword: boolean, authEmailDomains: string[] = []) =>
    violations(() => checkPageAccess({ accessType, hasPassword, authEmailDomains }));

  it("needs a password for password access, and nothing else", () => {
    expect(access("password", false)).toEqual(["statusPage.password: is required when accessType is password"]);
    expect(access("password", true)).toEqual([]);
  });

  it("needs a domain for email-domain access", () => {
    expect(access("email-domain", false)).toEqual(["statusPage.authEmailDomains: is required when accessType is email-domain"]);
    expect(access("email-domain", false, ["acme.example"])).toEqual([]);
  });

  it("needs nothing for public access", () => {
    expect(access("public", false)).toEqual([]);
    expect(access("public", true, ["acme.example"])).toEqual([]);
  });

  it("names the fields relative to the page for callers that place them (the CLI's vigil.yaml paths)", () => {
    expect(pageAccessViolations({ accessType: "password", hasPassword: false, authEmailDomains: [] })).toEqual([
      { field: "password", rule: "is required when accessType is password" },
    ]);
    expect(pageAccessViolations({ accessType: "email-domain", hasPassword: true, authEmailDomains: [] })).toEqual([
      { field: "authEmailDomains", rule: "is required when accessType is email-domain" },
    ]);
  });
});

describe("component rules across fields", () => {
  it("names the field relative to the component for callers that place it", () => {
    expect(componentMonitorViolations({ type: "monitor", monitorId: "" })).toEqual([{ field: "monitorId", rule: "is required when type is monitor" }]);
    expect(componentMonitorViolations({ type: "static", monitorId: "m1" })).toEqual([{ field: "monitorId", rule: "must be empty when type is static" }]);
    expect(componentMonitorViolations({ type: "monitor", monitorId: "m1" })).toEqual([]);
  });

  it("needs the monitor and the group a component names to exist, each told apart", () => {
    const has = { monitor: (id: string) => id === "m1", group: (id: string) => id === "g1" };
    expect(componentReferenceViolations({ monitorId: "m1", groupId: "g1" }, has)).toEqual([]);
    expect(componentReferenceViolations({ monitorId: "", groupId: "" }, has)).toEqual([]);
    expect(componentReferenceViolations({}, has)).toEqual([]);
    expect(componentReferenceViolations({ monitorId: "m2", groupId: "g2" }, has)).toEqual([
      { field: "monitorId", rule: "no monitor m2 in this workspace" },
      { field: "groupId", rule: "no group g2 on this page" },
    ]);
    expect(componentReferenceViolations({ monitorId: "web" }, has, { monitors: "in this file", groups: "on this page" })).toEqual([
      { field: "monitorId", rule: "no monitor web in this file" },
    ]);
  });
});

describe("component fields", () => {
  const componentViolations = (fields: Record<string, unknown>) => violations(() => parseComponent({ type: "static", ...fields }));

  it("fills in the defaults", () => {
    expect(parseComponent({ type: "static" })).toEqual({ type: "static", monitorId: "", name: "", description: "", order: 0, groupId: "", groupOrder: 0 });
    expect(parseComponent({ type: "monitor", monitorId: "m1" })).toMatchObject({ type: "monitor", monitorId: "m1" });
  });

  it("requires a type: monitor or static", () => {
    expect(violations(() => parseComponent({}))).toEqual(["component.type: is required"]);
    expect(componentViolations({ type: "chart" })).toEqual(["component.type: must be one of monitor, static"]);
  });

  it("needs a monitor for a monitor component and refuses one for a static component", () => {
    expect(violations(() => parseComponent({ type: "monitor" }))).toEqual(["component.monitorId: is required when type is monitor"]);
    expect(componentViolations({ monitorId: "m1" })).toEqual(["component.monitorId: must be empty when type is static"]);
    expect(violations(() => checkComponentMonitor({ type: "monitor", monitorId: "m1" }))).toEqual([]);
    expect(violations(() => checkComponentMonitor({ type: "static", monitorId: "" }))).toEqual([]);
  });

  it("takes a name of at most 256 and a description of at most 1024 characters", () => {
    expect(parseComponent({ type: "static", name: "n".repeat(256), description: "d".repeat(1024) }).name).toHaveLength(256);
    expect(componentViolations({ name: "n".repeat(257) })).toEqual(["component.name: must be at most 256 characters"]);
    expect(componentViolations({ description: "d".repeat(1025) })).toEqual(["component.description: must be at most 1024 characters"]);
  });

  it("takes ids of at most 64 characters", () => {
    expect(parseComponent({ type: "monitor", monitorId: "m".repeat(64) }).monitorId).toHaveLength(64);
    expect(violations(() => parseComponent({ type: "monitor", monitorId: "m".repeat(65) }))).toEqual(["component.monitorId: must be at most 64 characters"]);
    expect(componentViolations({ groupId: "g".repeat(65) })).toEqual(["component.groupId: must be at most 64 characters"]);
  });

  it.each(["order", "groupOrder"])("takes an int32 as %s", (field) => {
    const rule = `component.${field}: must be an integer from -2147483648 to 2147483647`;
    expect(parseComponent({ type: "static", [field]: 2 ** 31 - 1 })[field as "order"]).toBe(2 ** 31 - 1);
    expect(parseComponent({ type: "static", [field]: -(2 ** 31) })[field as "order"]).toBe(-(2 ** 31));
    expect(componentViolations({ [field]: 2 ** 31 })).toEqual([rule]);
    expect(componentViolations({ [field]: -(2 ** 31) - 1 })).toEqual([rule]);
    expect(componentViolations({ [field]: 1.5 })).toEqual([rule]);
  });

  it("validates only the fields an update changes", () => {
    expect(parseComponentChanges({ name: "" })).toEqual({ name: "" });
    expect(violations(() => parseComponentChanges({ name: "n".repeat(257) }))).toEqual(["component.name: must be at most 256 characters"]);
    expect(parseComponentChanges({ monitorId: "" })).toEqual({ monitorId: "" });
  });
});

describe("group name", () => {
  it("takes 1 to 256 characters", () => {
    expect(parseGroupName("n")).toBe("n");
    expect(parseGroupName("n".repeat(256))).toHaveLength(256);
    expect(violations(() => parseGroupName(""))).toEqual(["group.name: must not be empty"]);
    expect(violations(() => parseGroupName("n".repeat(257)))).toEqual(["group.name: must be at most 256 characters"]);
    expect(violations(() => parseGroupName(undefined))).toEqual(["group.name: is required"]);
  });
});
