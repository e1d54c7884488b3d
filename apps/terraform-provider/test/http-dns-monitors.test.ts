import { jsonComparatorCodec, monitorInputFromMessage, type MonitorKind, type MonitorMessageByKind } from "@vigil/domain";
import { terraformTests } from "./support/terraform.js";

const SITE = `
resource "service_http_monitor" "site" {
  name        = "Website"
  url         = "https://example.com/health"
  periodicity = "1m"
  regions     = ["hostA-iad", "hostB-fra"]
  headers {
    key   = "authorization"
    value = "Bearer site"
  }
  status_code_assertions {
    target     = 200
    comparator = "eq"
  }
  body_assertions {
    target     = "ok"
    comparator = "contains"
  }
  header_assertions {
    key        = "content-type"
    target     = "json"
    comparator = "contains"
  }
  json_body_assertions {
    path       = "$.status"
    comparator = "eq"
    target     = "ok"
  }
  json_body_assertions {
    path       = "$..error"
    comparator = "not_exists"
  }%EXTRA%
}
`;

const LANDING = `
resource "service_http_monitor" "landing" {
  name        = "Landing"
  url         = "https://example.com/"
  periodicity = "5m"
}
`;

const DOMAIN = `
resource "service_dns_monitor" "domain" {
  name        = "Domain"
  uri         = "example.com"
  periodicity = "10m"
  record_assertions {
    record     = "A"
    target     = "93.184.215.14"
    comparator = "%COMPARATOR%"
  }
  record_assertions {
    record     = "MX"
    target     = "mail.example.com"
    comparator = "contains"
  }%EXTRA%
}
`;

const config = ({ site = "", domain = "", comparator = "eq" } = {}) =>
  SITE.replace("%EXTRA%", site) + LANDING + DOMAIN.replace("%COMPARATOR%", comparator).replace("%EXTRA%", domain);

const fx = terraformTests();

/** A stored monitor's configuration with the API's enums decoded to the contract's names. */
async function stored(kind: MonitorKind, id: string) {
  const { monitor } = await fx.client().getMonitor({ id });
  expect(monitor?.config.case).toBe(kind);
  return monitorInputFromMessage(kind, monitor?.config.value as MonitorMessageByKind[typeof kind]);
}

describe("service_http_monitor and service_dns_monitor with terraform", () => {
  const tf = fx.folder();
  const ids = { site: "", landing: "", domain: "" };
  const write = (options?: Parameters<typeof config>[0]) => tf.configure(config(options));
  const readIds = async () => {
    ids.site = String((await tf.stateOf("service_http_monitor.site"))?.id);
    ids.landing = String((await tf.stateOf("service_http_monitor.landing"))?.id);
    ids.domain = String((await tf.stateOf("service_dns_monitor.domain"))?.id);
  };

  it("creates the monitors with the contract's defaults, and a second plan shows no changes", async () => {
    await write();
    await tf.apply();
    await readIds();
    expect(await stored("http", ids.site)).toMatchObject({
      name: "Website",
      url: "https://example.com/health",
      periodicity: "1m",
      regions: ["hostA-iad", "hostB-fra"],
      method: "GET",
      body: "",
      followRedirects: true,
      traceHeader: true,
      certificateExpiryDays: 14,
      timeout: 45000,
      retry: 3,
      degradedAt: 22500,
      active: false,
      public: false,
      headers: [{ key: "authorization", value: "Bearer site" }],
      statusCodeAssertions: [{ target: 200, comparator: "eq" }],
      bodyAssertions: [{ target: "ok", comparator: "contains" }],
      headerAssertions: [{ key: "content-type", target: "json", comparator: "contains" }],
      jsonBodyAssertions: [
        { path: "$.status", comparator: "eq", target: "ok" },
        { path: "$..error", comparator: "not_exists", target: "" },
      ],
    });
    expect(await stored("http", ids.landing)).toMatchObject({ url: "https://example.com/", method: "GET", headers: [], statusCodeAssertions: [], jsonBodyAssertions: [] });
    expect(await stored("dns", ids.domain)).toMatchObject({
      name: "Domain",
      uri: "example.com",
      periodicity: "10m",
      recordAssertions: [
        { record: "A", target: "93.184.215.14", comparator: "eq" },
        { record: "MX", target: "mail.example.com", comparator: "contains" },
      ],
    });
    expect(await tf.stateOf("service_http_monitor.landing")).toMatchObject({
      method: "GET",
      body: "",
      follow_redirects: true,
      trace_header: true,
      certificate_expiry_days: 14,
      timeout: 45000,
      retry: 3,
      degraded_at: 22500,
      regions: [],
      headers: [],
      status_code_assertions: [],
      json_body_assertions: [],
      open_telemetry: null,
      status: "unknown",
    });
    await tf.plan(0);
  });

  it("updates in place, keeping the ids", async () => {
    await write({
      site: `\n  method = "POST"\n  body = "{}"\n  follow_redirects = false\n  trace_header = false\n  certificate_expiry_days = 30\n  status_code_assertions {\n    target = 300\n    comparator = "lt"\n  }`,
      comparator: "neq",
      domain: `\n  description = "apex"`,
    });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_http_monitor.site will be updated in-place");
    expect(plan.stdout).toContain("service_dns_monitor.domain will be updated in-place");
    expect(plan.stdout).toContain("Plan: 0 to add, 2 to change, 0 to destroy");
    await tf.apply();
    const before = { ...ids };
    await readIds();
    expect(ids).toEqual(before);
    expect(await stored("http", ids.site)).toMatchObject({
      method: "POST",
      body: "{}",
      followRedirects: false,
      traceHeader: false,
      certificateExpiryDays: 30,
      statusCodeAssertions: [
        { target: 200, comparator: "eq" },
        { target: 300, comparator: "lt" },
      ],
    });
    expect(await stored("dns", ids.domain)).toMatchObject({
      description: "apex",
      recordAssertions: [{ comparator: "neq" }, { comparator: "contains" }],
    });
    await tf.plan(0);
  });

  it("shows JSON body assertions changed outside Terraform as drift, and puts them back", async () => {
    await fx.client().updateHTTPMonitor({
      id: ids.site,
      monitor: { jsonBodyAssertions: [{ path: "$.status", comparator: jsonComparatorCodec.encode("eq"), target: "degraded" }] },
      updateMask: { paths: ["jsonBodyAssertions"] },
    });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ target\s+= "degraded" -> "ok"/);
    expect(plan.stdout).toContain("+ json_body_assertions {");
    await tf.apply();
    expect(await stored("http", ids.site)).toMatchObject({
      jsonBodyAssertions: [
        { path: "$.status", comparator: "eq", target: "ok" },
        { path: "$..error", comparator: "not_exists", target: "" },
      ],
    });
    await tf.plan(0);
  });

  it("shows fields changed outside Terraform as drift, and puts them back", async () => {
    const client = fx.client();
    await client.updateHTTPMonitor({ id: ids.site, monitor: { followRedirects: true, traceHeader: true, certificateExpiryDays: 0n }, updateMask: { paths: ["followRedirects", "traceHeader", "certificateExpiryDays"] } });
    await client.updateDNSMonitor({ id: ids.domain, monitor: { uri: "example.org" }, updateMask: { paths: ["uri"] } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ follow_redirects\s+= true -> false/);
    expect(plan.stdout).toMatch(/~ trace_header\s+= true -> false/);
    expect(plan.stdout).toMatch(/~ certificate_expiry_days\s+= 0 -> 30/);
    expect(plan.stdout).toMatch(/~ uri\s+= "example.org" -> "example.com"/);
    await tf.apply();
    expect(await stored("http", ids.site)).toMatchObject({ followRedirects: false, traceHeader: false, certificateExpiryDays: 30 });
    expect(await stored("dns", ids.domain)).toMatchObject({ uri: "example.com" });
  });

  it("imports existing monitors with no changes planned after it", async () => {
    for (const [address, id] of [
      ["service_http_monitor.site", ids.site],
      ["service_dns_monitor.domain", ids.domain],
    ] as const) {
      await tf.reimport(address, id);
    }
    await tf.plan(0);
  });

  it("plans to create again monitors deleted outside Terraform", async () => {
    await fx.client().deleteMonitor({ id: ids.site });
    await fx.client().deleteMonitor({ id: ids.domain });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_http_monitor.site will be created");
    expect(plan.stdout).toContain("service_dns_monitor.domain will be created");
    expect(plan.stdout).toContain("Plan: 2 to add, 0 to change, 0 to destroy");
    await tf.apply();
    await readIds();
    expect(await stored("http", ids.site)).toMatchObject({ method: "POST", headers: [{ key: "authorization", value: "Bearer site" }] });
    expect(await stored("dns", ids.domain)).toMatchObject({ description: "apex" });
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    expect(await fx.client().listMonitors({ limit: 100 })).toMatchObject({ httpMonitors: [], dnsMonitors: [], totalSize: 0 });
  });
});

describe("service_http_monitor and service_dns_monitor plan-time errors", () => {
  const tf = fx.folder();

  const planErrors = async (content: string) => {
    await tf.configure(content);
    // Terraform wraps long messages: compared with single spaces.
    return (await tf.expectExit(1, "plan")).stderr.replace(/\s+/g, " ");
  };

  it("names the attribute path and the rule of a bad status code or comparator", async () => {
    const stderr = await planErrors(
      config({ comparator: "matches" })
        .replace("target     = 200", "target     = 600")
        .replace('target     = "json"\n    comparator = "contains"', 'target     = "json"\n    comparator = "like"'),
    );
    expect(stderr).toContain("Invalid value for status_code_assertions.target");
    expect(stderr).toContain("status_code_assertions.target must be an integer from 100 to 599");
    expect(stderr).toContain("target = 600");
    expect(stderr).toContain("header_assertions.comparator must be one of contains, not_contains, eq, neq, empty, not_empty, gt, gte, lt, lte");
    expect(stderr).toContain('comparator = "like"');
    expect(stderr).toContain("record_assertions.comparator must be one of eq, neq, contains, not_contains");
    expect(stderr).toContain('comparator = "matches"');
  });

  it("names the rule of a JSONPath query that does not parse, and of a target an ordering comparator cannot compare", async () => {
    const stderr = await planErrors(config().replace('path       = "$..error"', 'path       = "$.items["').replace('comparator = "eq"\n    target     = "ok"', 'comparator = "gt"\n    target     = "ok"'));
    expect(stderr).toContain("json_body_assertions.path must be a JSONPath query (RFC 9535)");
    expect(stderr).toContain('path = "$.items["');
    expect(stderr).toContain("json_body_assertions.target must be a number: gt compares numbers");
  });

  it("names the rule of a certificate_expiry_days out of range", async () => {
    const stderr = await planErrors(config({ site: "\n  certificate_expiry_days = 3651" }));
    expect(stderr).toContain("certificate_expiry_days must be an integer from 0 to 3650");
    expect(stderr).toContain("certificate_expiry_days = 3651");
  });

  it("refuses bare location codes, naming the region ids they may stand for", async () => {
    const stderr = await planErrors(config().replace('["hostA-iad", "hostB-fra"]', '["iad", "fra", "hostA-jnb"]'));
    expect(stderr).toContain("Invalid value for regions");
    expect(stderr).toContain('regions must be region ids, not the location code "iad": use "hostA-iad"');
    expect(stderr).toContain('regions must be region ids, not the location code "fra": use "hostA-fra" or "hostB-fra"');
    expect(stderr).not.toContain("must be one of hostA-ams");
  });

  it("refuses bare location codes for DNS monitors too, and still lists the ids for other unknown regions", async () => {
    const stderr = await planErrors(config().replace('periodicity = "10m"', 'periodicity = "10m"\n  regions = ["jnb", "mars"]'));
    expect(stderr).toContain('regions must be region ids, not the location code "jnb": use "hostA-jnb"');
    expect(stderr).toContain("regions must be one of hostA-ams");
  });
});
