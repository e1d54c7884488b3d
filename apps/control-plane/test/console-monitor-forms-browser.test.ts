import { Code, ConnectError } from "@connectrpc/connect";
import { DEFAULTS, defaultDegradedAt, monitorConfigToMessage, parseMonitorConfig, regionCodec, type RegionId, type Role } from "@vigil/domain";
import { JsonComparator, MonitorService, type HTTPMonitor } from "@vigil/proto";
import { consoleTestEnvironment, expectAccessible, focused, heading, shows, signInWith, screenshotBoth, type ConsolePage } from "./support/console";
import { sessionClient, signedInPerson, type Person } from "./support/people";

/**
 * The console's monitor forms (apps/console/src/pages/monitors/form) in
 * headless Chromium at a phone's width, against a real control plane: what is
 * entered is what the API then answers, field by field; the API's rules are
 * shown beside the fields before sending and its refusals after; a viewer gets
 * no form and the API refuses it.
 */
/** Few, so that a test reaches the limit: a refusal that names no field of the form. */
const MONITORS_PER_WORKSPACE = 3;
const env = consoleTestEnvironment("https://vigil.example.com", { monitorsPerWorkspace: MONITORS_PER_WORKSPACE });
const { open } = env;

/** A new workspace and a person of `role` in it, signed in to the console. */
async function signedIn(role: Role) {
  const { slug } = await env.api.workspace();
  const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, role);
  const page = await open(`${env.api.baseUrl}/app/sign-in`);
  await signInWith(page, person.email, person.password);
  await shows(heading(page), "Monitors");
  return { slug, person, page };
}

const monitors = (slug: string, person: Person) => sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug });

/** The monitor page a form goes to after saving. */
const atMonitorPage = (url: URL) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname);

/** Submits and waits for the monitor page the form goes to; answers the monitor's id. */
async function saved(page: ConsolePage, button: string): Promise<string> {
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL(atMonitorPage).catch(async (error: Error) => {
    // What the form shows instead says why.
    throw new Error(`${error.message}; the form shows: ${(await page.locator(".error, [role=alert]").allTextContents()).join(" | ")}`);
  });
  return new URL(page.url()).pathname.split("/").pop()!;
}

const label = (page: ConsolePage, text: string) => page.getByLabel(text, { exact: true });
const region = (page: ConsolePage, host: string, location: string) => page.getByRole("group", { name: host, exact: true }).getByLabel(location, { exact: true });

async function addRow(page: ConsolePage, noun: string, fields: [field: string, value: string, kind?: "select"][]) {
  await page.getByRole("button", { name: `Add ${noun.toLowerCase()}`, exact: true }).click();
  const index = await page.getByRole("button", { name: new RegExp(`^Remove ${noun.toLowerCase()} \\d+$`) }).count();
  for (const [field, value, kind] of fields) {
    const input = label(page, `${noun} ${index} ${field}`);
    if (kind === "select") await input.selectOption(value);
    else await input.fill(value);
  }
}

describe("the console's monitor forms", () => {
  it("creates a monitor of each kind through its form, every field as entered", async () => {
    const { slug, person, page } = await signedIn("editor");
    await page.getByRole("navigation").getByRole("link", { name: "New monitor" }).click();
    await shows(heading(page), "New monitor");
    // The domain's defaults, shown.
    expect(await label(page, "Timeout (ms)").inputValue()).toBe(String(DEFAULTS.timeoutMs));
    expect(await label(page, "Retries").inputValue()).toBe(String(DEFAULTS.retry));
    expect(await label(page, "Method").inputValue()).toBe(DEFAULTS.method);
    expect(await label(page, "Follow redirects").isChecked()).toBe(DEFAULTS.followRedirects);
    expect(await label(page, "Send a trace header").isChecked()).toBe(DEFAULTS.traceHeader);
    expect(await label(page, "Certificate warning (days)").inputValue()).toBe(String(DEFAULTS.certificateExpiryDays));

    await label(page, "Name").fill("Shop health");
    await label(page, "URL").fill("https://shop.example.com/health?deep=1");
    await label(page, "Check every").selectOption("1m");
    await label(page, "Method").selectOption("POST");
    await label(page, "Body").fill('{"probe":true}');
    await addRow(page, "Header", [
      ["name", "Authorization"],
      ["value", "Bearer s3cret"],
    ]);
    await label(page, "Follow redirects").uncheck();
    await label(page, "Send a trace header").uncheck();
    await label(page, "Certificate warning (days)").fill("30");
    await label(page, "Timeout (ms)").fill("10000");
    await label(page, "Retries").fill("2");
    await label(page, "Degraded after (ms)").fill("4000");
    await region(page, "hostA", "ams").check();
    await region(page, "hostB", "fra").check();
    await region(page, "hostC", "us-east4").check();
    await addRow(page, "Status code assertion", [
      ["comparator", "lt", "select"],
      ["status code", "400"],
    ]);
    await addRow(page, "Body assertion", [
      ["comparator", "not_contains", "select"],
      ["text", "error"],
    ]);
    await addRow(page, "Header assertion", [
      ["header name", "content-type"],
      ["comparator", "eq", "select"],
      ["text", "application/json"],
    ]);
    await addRow(page, "JSON body assertion", [
      ["JSONPath", "$.checks[*].status"],
      ["comparator", "eq", "select"],
      ["value", "pass"],
    ]);
    await addRow(page, "JSON body assertion", [
      ["JSONPath", "$.error"],
      ["comparator", "not_exists", "select"],
    ]);
    await label(page, "Active").check();
    await label(page, "Public").check();
    await label(page, "Export check metrics over OTLP").check();
    await label(page, "OTLP endpoint").fill("https://otel.example.com/v1/metrics");
    await addRow(page, "Export header", [
      ["name", "x-otlp-key"],
      ["value", "k3y"],
    ]);
    await label(page, "Description").fill("The shop's deep health check.\nPages the on-call.");
    await label(page, "External id").fill("shop/health");
    await expectAccessible(page, "new HTTP monitor, filled in");
    await screenshotBoth(page, "monitor-form-http");
    const httpId = await saved(page, "Create HTTP monitor");

    const client = monitors(slug, person);
    const http = (await client.getMonitor({ id: httpId })).monitor!.config;
    expect(http.case).toBe("http");
    expect(http.value).toMatchObject({
      name: "Shop health",
      url: "https://shop.example.com/health?deep=1",
      periodicity: 2,
      method: 2,
      body: '{"probe":true}',
      headers: [{ key: "Authorization", value: "Bearer s3cret" }],
      followRedirects: false,
      traceHeader: false,
      certificateExpiryDays: 30n,
      timeout: 10000n,
      retry: 2n,
      degradedAt: 4000n,
      regions: regionNumbers(["hostA-ams", "hostB-fra", "hostC-us-east4"]),
      statusCodeAssertions: [{ target: 400n, comparator: 5 }],
      bodyAssertions: [{ target: "error", comparator: 2 }],
      headerAssertions: [{ key: "content-type", target: "application/json", comparator: 3 }],
      jsonBodyAssertions: [
        { path: "$.checks[*].status", comparator: JsonComparator.EQUAL, target: "pass" },
        { path: "$.error", comparator: JsonComparator.NOT_EXISTS, target: "" },
      ],
      active: true,
      public: true,
      openTelemetry: { endpoint: "https://otel.example.com/v1/metrics", headers: [{ key: "x-otlp-key", value: "k3y" }] },
      description: "The shop's deep health check.\nPages the on-call.",
      externalId: "shop/health",
    });

    // TCP, with the domain's defaults left as shown.
    await page.goto(`${env.api.baseUrl}/app/monitors/new`);
    await page.getByRole("radio", { name: "TCP" }).check();
    await label(page, "Name").fill("Mail relay");
    await label(page, "Host and port").fill("mail.example.com:587");
    await label(page, "Check every").selectOption("5m");
    expect(await page.getByLabel("URL", { exact: true }).count()).toBe(0);
    expect(await page.getByRole("group", { name: "Request" }).count()).toBe(0);
    await expectAccessible(page, "new TCP monitor");
    await screenshotBoth(page, "monitor-form-tcp");
    const tcpId = await saved(page, "Create TCP monitor");
    expect((await client.getMonitor({ id: tcpId })).monitor!.config).toMatchObject({
      case: "tcp",
      value: {
        name: "Mail relay",
        uri: "mail.example.com:587",
        periodicity: 3,
        timeout: BigInt(DEFAULTS.timeoutMs),
        retry: BigInt(DEFAULTS.retry),
        degradedAt: BigInt(defaultDegradedAt(DEFAULTS.timeoutMs)),
        regions: [],
        active: DEFAULTS.active,
        public: DEFAULTS.public,
        description: DEFAULTS.description,
        externalId: "",
      },
    });
    expect(((await client.getMonitor({ id: tcpId })).monitor!.config.value as { openTelemetry?: unknown }).openTelemetry).toBeUndefined();

    // DNS, with record assertions.
    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=dns`);
    await label(page, "Name").fill("Apex records");
    await label(page, "Domain name").fill("example.com.");
    await label(page, "Check every").selectOption("1h");
    await addRow(page, "Record assertion", [
      ["record type", "AAAA", "select"],
      ["comparator", "contains", "select"],
      ["value", "2606:2800"],
    ]);
    await addRow(page, "Record assertion", [
      ["record type", "TXT", "select"],
      ["comparator", "neq", "select"],
      ["value", "v=spf1 -all"],
    ]);
    await label(page, "Timeout (ms)").fill("0");
    await region(page, "hostB", "tyo").check();
    await expectAccessible(page, "new DNS monitor");
    await screenshotBoth(page, "monitor-form-dns");
    const dnsId = await saved(page, "Create DNS monitor");
    expect((await client.getMonitor({ id: dnsId })).monitor!.config).toMatchObject({
      case: "dns",
      value: {
        name: "Apex records",
        uri: "example.com.",
        periodicity: 6,
        timeout: 0n,
        degradedAt: BigInt(defaultDegradedAt(0)),
        regions: regionNumbers(["hostB-tyo"]),
        recordAssertions: [
          { record: "AAAA", comparator: 3, target: "2606:2800" },
          { record: "TXT", comparator: 2, target: "v=spf1 -all" },
        ],
      },
    });
  });

  it("edits every field of an HTTP monitor, lists emptied and metrics export turned off", async () => {
    const { slug, person, page } = await signedIn("admin");
    const client = monitors(slug, person);
    const config = parseMonitorConfig("http", {
      name: "Before",
      url: "https://before.example.com/",
      periodicity: "30s",
      method: "PUT",
      body: "old",
      headers: [{ key: "x-old", value: "1" }, { key: "x-kept", value: "2" }],
      followRedirects: true,
      traceHeader: false,
      certificateExpiryDays: 0,
      timeout: 30000,
      retry: 5,
      degradedAt: 7000,
      regions: ["hostA-sin", "hostC-europe-west4"],
      active: true,
      public: false,
      description: "before",
      statusCodeAssertions: [{ target: 200, comparator: "eq" }],
      bodyAssertions: [{ target: "ok", comparator: "contains" }],
      headerAssertions: [{ key: "server", target: "nginx", comparator: "eq" }],
      jsonBodyAssertions: [
        { path: "$.status", comparator: "eq", target: "ok" },
        { path: "$.version", comparator: "exists", target: "" },
      ],
      openTelemetry: { endpoint: "https://otel.example.com", headers: [{ key: "k", value: "v" }] },
    });
    const created = await client.createHTTPMonitor({ monitor: monitorConfigToMessage("http", config, "before") as HTTPMonitor });
    const id = created.monitor!.id;

    await page.goto(`${env.api.baseUrl}/app/monitors/${id}/edit`);
    await shows(heading(page), "Edit Before");
    // What is stored, in the fields.
    expect(await label(page, "URL").inputValue()).toBe("https://before.example.com/");
    expect(await label(page, "Header 2 value").inputValue()).toBe("2");
    expect(await region(page, "hostC", "europe-west4").isChecked()).toBe(true);
    expect(await label(page, "OTLP endpoint").inputValue()).toBe("https://otel.example.com");
    expect(await label(page, "JSON body assertion 2 JSONPath").inputValue()).toBe("$.version");
    expect(await label(page, "JSON body assertion 2 comparator").inputValue()).toBe("exists");
    expect(await label(page, "Send a trace header").isChecked()).toBe(false);
    expect(await label(page, "Certificate warning (days)").inputValue()).toBe("0");
    await expectAccessible(page, "edit HTTP monitor");
    await screenshotBoth(page, "monitor-form-edit");

    await label(page, "Name").fill("After");
    await label(page, "URL").fill("https://after.example.com/ping");
    await label(page, "Check every").selectOption("10m");
    await label(page, "Method").selectOption("HEAD");
    await label(page, "Body").fill("");
    await page.getByRole("button", { name: "Remove header 1", exact: true }).click();
    await label(page, "Header 1 value").fill("3");
    await label(page, "Follow redirects").uncheck();
    await label(page, "Send a trace header").check();
    await label(page, "Certificate warning (days)").fill("7");
    await label(page, "Timeout (ms)").fill("20000");
    await label(page, "Retries").fill("0");
    await label(page, "Degraded after (ms)").fill("");
    await region(page, "hostA", "sin").uncheck();
    await region(page, "hostA", "syd").check();
    await page.getByRole("button", { name: "Remove status code assertion 1" }).click();
    await page.getByRole("button", { name: "Remove body assertion 1" }).click();
    await page.getByRole("button", { name: "Remove JSON body assertion 2" }).click();
    await label(page, "JSON body assertion 1 value").fill("healthy");
    await label(page, "Header assertion 1 text").fill("caddy");
    await label(page, "Header assertion 1 comparator").selectOption("neq");
    await label(page, "Active").uncheck();
    await label(page, "Public").check();
    await label(page, "Export check metrics over OTLP").uncheck();
    await label(page, "Description").fill("");
    await label(page, "External id").fill("");
    expect(await saved(page, "Save monitor")).toBe(id);

    const after = (await client.getMonitor({ id })).monitor!.config.value as HTTPMonitor;
    expect(after).toMatchObject({
      name: "After",
      url: "https://after.example.com/ping",
      periodicity: 4,
      method: 3,
      body: "",
      headers: [{ key: "x-kept", value: "3" }],
      followRedirects: false,
      traceHeader: true,
      certificateExpiryDays: 7n,
      timeout: 20000n,
      retry: 0n,
      degradedAt: BigInt(defaultDegradedAt(20000)),
      regions: regionNumbers(["hostA-syd", "hostC-europe-west4"]),
      statusCodeAssertions: [],
      bodyAssertions: [],
      headerAssertions: [{ key: "server", target: "caddy", comparator: 4 }],
      jsonBodyAssertions: [{ path: "$.status", comparator: JsonComparator.EQUAL, target: "healthy" }],
      active: false,
      public: true,
      description: "",
      externalId: "",
    });
    expect(after.openTelemetry).toBeUndefined();
  });

  it("shows the API's rules beside the fields before sending, and its refusals after", async () => {
    const { slug, person, page } = await signedIn("editor");
    await page.goto(`${env.api.baseUrl}/app/monitors/new`);
    await shows(heading(page), "New monitor");
    await label(page, "URL").fill("ftp://files.example.com");
    await label(page, "Timeout (ms)").fill("120001");
    await label(page, "Retries").fill("1.5");
    await label(page, "Certificate warning (days)").fill("3651");
    await addRow(page, "Header", [
      ["name", "bad header"],
      ["value", "x"],
    ]);
    await addRow(page, "Status code assertion", [["status code", "700"]]);
    await addRow(page, "JSON body assertion", [
      ["JSONPath", "$.items["],
      ["comparator", "gt", "select"],
      ["value", "many"],
    ]);
    await page.getByRole("button", { name: "Create HTTP monitor" }).click();
    await shows(page.getByText("Name: must not be empty"));
    await shows(page.getByText("URL: must be an absolute http:// or https:// URL"));
    await shows(page.getByText("Check every: is required"));
    await shows(page.getByText("Timeout (ms): must be an integer from 0 to 120000"));
    await shows(page.getByText("Retries: must be an integer from 0 to 10"));
    await shows(page.getByText("Certificate warning (days): must be an integer from 0 to 3650"));
    await shows(page.getByText("Header 1 name: must be a valid HTTP header name"));
    await shows(page.getByText("Status code assertion 1 status code: must be an integer from 100 to 599"));
    await shows(page.getByText("JSON body assertion 1 JSONPath: must be a JSONPath query (RFC 9535) such as $.status: unclosed bracketed selection at offset 8"));
    await shows(page.getByText("JSON body assertion 1 value: must be a number: gt compares numbers"));
    expect(await focused(page)).toBe("name");
    expect(await label(page, "URL").getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page, "new monitor with the browser's errors");
    await screenshotBoth(page, "monitor-form-errors");
    // Nothing was sent.
    const client = monitors(slug, person);
    expect((await client.listMonitors({})).totalSize).toBe(0);

    // Valid for the browser; the API's own rules refuse, beside the fields: first a credential's fingerprint as a
    // header value (what read keys are answered in its place)...
    await label(page, "Name").fill("Metadata");
    await label(page, "Certificate warning (days)").fill("3650");
    await label(page, "URL").fill("http://169.254.169.254/latest");
    await label(page, "Check every").selectOption("1m");
    await label(page, "Timeout (ms)").fill("1000");
    await label(page, "Retries").fill("1");
    await label(page, "Header 1 name").fill("x-ok");
    await addRow(page, "Header", [
      ["name", "authorization"],
      ["value", "fingerprint:0123456789abcdef"],
    ]);
    await label(page, "Status code assertion 1 status code").fill("200");
    await page.getByRole("button", { name: "Remove JSON body assertion 1" }).click();
    await label(page, "Export check metrics over OTLP").check();
    await label(page, "OTLP endpoint").fill("http://169.254.169.254:4318");
    await page.getByRole("button", { name: "Create HTTP monitor" }).click();
    await shows(page.getByText("Header 2 value: is a fingerprint of a credential"));
    expect(await focused(page)).toBe("headers.1.value");

    // ... then the deployment's outbound guard on the URL and the OTLP endpoint...
    await label(page, "Header 2 value").fill("Bearer t0ken");
    await page.getByRole("button", { name: "Create HTTP monitor" }).click();
    await shows(page.getByText("URL: refused: 169.254.169.254 is a link-local address"));
    await shows(page.getByText("OTLP endpoint: refused: 169.254.169.254 is a link-local address"));
    expect(await focused(page)).toBe("url");
    await expectAccessible(page, "new monitor with the API's errors");
    expect((await client.listMonitors({})).totalSize).toBe(0);

    // ... then an external id another monitor has.
    await client.createTCPMonitor({ monitor: { name: "taken", uri: "a.example.com:1", periodicity: 2, externalId: "taken" } });
    await label(page, "URL").fill("https://example.com/");
    await label(page, "OTLP endpoint").fill("");
    await label(page, "External id").fill("taken");
    await page.getByRole("button", { name: "Create HTTP monitor" }).click();
    await shows(page.getByText("External id: another monitor of this workspace has external id taken"));
    expect(await focused(page)).toBe("externalId");
    expect((await client.listMonitors({})).totalSize).toBe(1);
  });

  it("shows a refusal that names no field as the form's message: the workspace's monitors limit", async () => {
    const { slug, person, page } = await signedIn("editor");
    const client = monitors(slug, person);
    for (let n = 0; n < MONITORS_PER_WORKSPACE; n++) await client.createTCPMonitor({ monitor: { name: `m${n}`, uri: "a.example.com:1", periodicity: 2 } });
    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=dns`);
    await label(page, "Name").fill("One too many");
    await label(page, "Domain name").fill("example.com");
    await label(page, "Check every").selectOption("1m");
    await page.getByRole("button", { name: "Create DNS monitor" }).click();
    await shows(page.getByRole("alert"), `the workspace has ${MONITORS_PER_WORKSPACE} monitors, the most it may have`);
    expect(await focused(page)).toBe("alert");
    expect(await page.locator("[aria-invalid=true]").count()).toBe(0);
    expect((await client.listMonitors({})).totalSize).toBe(MONITORS_PER_WORKSPACE);
  });

  it("creates a monitor with the keyboard alone", async () => {
    const { slug, person, page } = await signedIn("editor");
    await page.goto(`${env.api.baseUrl}/app/monitors/new`);
    await shows(heading(page), "New monitor");
    const tabTo = async (name: string) => {
      let presses = 0;
      while ((await focused(page)) !== name) {
        expect(++presses).toBeLessThan(60);
        await page.keyboard.press("Tab");
      }
    };
    await tabTo("kind");
    await page.keyboard.press("ArrowRight");
    await shows(label(page, "Host and port"));
    await tabTo("name");
    await page.keyboard.type("Keyboard");
    await tabTo("uri");
    await page.keyboard.type("kb.example.com:22");
    await tabTo("periodicity");
    await page.keyboard.press("ArrowDown");
    await tabTo("regions");
    await page.keyboard.press("Space");
    await tabTo("active");
    await page.keyboard.press("Space");
    await tabTo("externalId");
    await page.keyboard.press("Enter");
    await page.waitForURL(atMonitorPage);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await monitors(slug, person).getMonitor({ id })).monitor!.config).toMatchObject({
      case: "tcp",
      value: { name: "Keyboard", uri: "kb.example.com:22", periodicity: 1, regions: regionNumbers(["hostA-ams"]), active: true },
    });
  });

  it("shows a viewer no form, and the API refuses it", async () => {
    const { slug, person, page } = await signedIn("viewer");
    const owner = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "owner");
    const created = await monitors(slug, owner).createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity: 2 } });
    expect(await page.getByRole("navigation").getByRole("link", { name: "New monitor" }).count()).toBe(0);
    for (const path of ["monitors/new", `monitors/${created.monitor!.id}/edit`]) {
      await page.goto(`${env.api.baseUrl}/app/${path}`);
      await shows(page.getByRole("alert"), "your role in this workspace is viewer");
      expect(await page.locator("form").count()).toBe(0);
      expect(await page.getByRole("textbox").count()).toBe(0);
      await expectAccessible(page, `${path}, viewer`);
    }
    await screenshotBoth(page, "monitor-form-viewer");
    const refused = await monitors(slug, person)
      .createTCPMonitor({ monitor: { name: "mine", uri: "db.example.com:5432", periodicity: 2 } })
      .catch((error: unknown) => error);
    expect(ConnectError.from(refused).code).toBe(Code.PermissionDenied);
    const edit = await monitors(slug, person)
      .updateTCPMonitor({ id: created.monitor!.id, monitor: { name: "renamed" } })
      .catch((error: unknown) => error);
    expect(ConnectError.from(edit).code).toBe(Code.PermissionDenied);
  });
});

/** The API's numbers of region ids, in the order given. */
const regionNumbers = (ids: RegionId[]) => ids.map(regionCodec.encode);
