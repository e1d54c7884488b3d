import { AddressPolicy, channelTargets, monitorTargets, parseMonitorConfig, parseProviderConfig, ValidationError } from "../src";

const strict = AddressPolicy.STRICT;
const ruleOf = (policy: AddressPolicy, address: string) => policy.refusal(address)?.rule ?? null;

describe("the default policy", () => {
  it.each([
    ["127.0.0.1", "loopback address"],
    ["127.255.255.254", "loopback address"],
    ["::1", "loopback address"],
    ["10.0.0.5", "private address (RFC 1918)"],
    ["172.16.0.1", "private address (RFC 1918)"],
    ["172.31.255.255", "private address (RFC 1918)"],
    ["192.168.1.1", "private address (RFC 1918)"],
    ["169.254.169.254", "link-local address"],
    ["169.254.0.1", "link-local address"],
    ["fe80::1", "link-local address"],
    ["febf::1", "link-local address"],
    ["100.64.0.1", "shared address (CGNAT, RFC 6598)"],
    ["100.127.255.255", "shared address (CGNAT, RFC 6598)"],
    ["0.0.0.0", "unspecified address"],
    ["0.1.2.3", "unspecified address"],
    ["::", "unspecified address"],
    ["224.0.0.1", "multicast address"],
    ["239.255.255.250", "multicast address"],
    ["ff02::1", "multicast address"],
    ["255.255.255.255", "broadcast address"],
    ["240.0.0.1", "reserved address"],
    ["250.1.2.3", "reserved address"],
    ["192.0.0.8", "reserved address"],
    ["198.18.0.1", "reserved address"],
    ["100::1", "reserved address"],
    ["fec0::1", "reserved address"],
    ["192.0.2.10", "documentation address"],
    ["198.51.100.10", "documentation address"],
    ["203.0.113.10", "documentation address"],
    ["2001:db8::1", "documentation address"],
    ["fc00::1", "unique-local address (IPv6)"],
    ["fd12:3456::1", "unique-local address (IPv6)"],
  ])("refuses %s: %s", (address, rule) => {
    expect(ruleOf(strict, address)).toBe(rule);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback address (IPv4-mapped form of 127.0.0.1)"],
    ["::ffff:7f00:1", "loopback address (IPv4-mapped form of 127.0.0.1)"],
    ["::ffff:10.0.0.5", "private address (RFC 1918) (IPv4-mapped form of 10.0.0.5)"],
    ["::ffff:169.254.169.254", "link-local address (IPv4-mapped form of 169.254.169.254)"],
    ["::ffff:100.64.0.1", "shared address (CGNAT, RFC 6598) (IPv4-mapped form of 100.64.0.1)"],
    ["::ffff:0.0.0.0", "unspecified address (IPv4-mapped form of 0.0.0.0)"],
    ["::ffff:224.0.0.1", "multicast address (IPv4-mapped form of 224.0.0.1)"],
    ["::ffff:255.255.255.255", "broadcast address (IPv4-mapped form of 255.255.255.255)"],
    ["::ffff:240.0.0.1", "reserved address (IPv4-mapped form of 240.0.0.1)"],
    ["::ffff:192.0.2.1", "documentation address (IPv4-mapped form of 192.0.2.1)"],
    ["::127.0.0.1", "loopback address (IPv4-compatible form of 127.0.0.1)"],
    ["::10.0.0.5", "private address (RFC 1918) (IPv4-compatible form of 10.0.0.5)"],
    ["::169.254.169.254", "link-local address (IPv4-compatible form of 169.254.169.254)"],
    ["64:ff9b::127.0.0.1", "loopback address (NAT64 form of 127.0.0.1)"],
    ["64:ff9b::a00:5", "private address (RFC 1918) (NAT64 form of 10.0.0.5)"],
    ["64:ff9b::169.254.169.254", "link-local address (NAT64 form of 169.254.169.254)"],
  ])("refuses the IPv6 form %s", (address, rule) => {
    expect(ruleOf(strict, address)).toBe(rule);
  });

  it.each(["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"])(
    "allows the public address %s",
    (address) => {
      expect(strict.refusal(address)).toBeNull();
    },
  );

  it("words a refusal with the address, the rule and the setting that opens it", () => {
    expect(strict.refusal("10.0.0.5")).toEqual({
      address: "10.0.0.5",
      rule: "private address (RFC 1918)",
      description: "a private address (RFC 1918)",
      hint: "set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
    });
    expect(strict.refusal("224.0.0.1")?.hint).toBe("set ALLOWED_TARGET_CIDRS to allow it");
    expect(() => strict.assertAllowed("127.0.0.1")).toThrow(
      "refused to connect to 127.0.0.1: loopback address; set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
    );
  });
});

describe("ALLOW_PRIVATE_TARGETS=true", () => {
  const open = AddressPolicy.fromEnv({ ALLOW_PRIVATE_TARGETS: "true" });

  it.each(["127.0.0.1", "::1", "10.0.0.5", "172.16.0.1", "192.168.1.1", "100.64.0.1", "fd00::1", "::ffff:10.0.0.5", "64:ff9b::7f00:1"])("opens %s", (address) => {
    expect(open.refusal(address)).toBeNull();
  });

  it.each(["169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "240.0.0.1", "192.0.2.1", "2001:db8::1"])(
    "still refuses %s",
    (address) => {
      expect(open.refusal(address)).not.toBeNull();
    },
  );
});

describe("ALLOWED_TARGET_CIDRS", () => {
  const policy = AddressPolicy.fromEnv({ ALLOWED_TARGET_CIDRS: " 10.1.0.0/16, fd00:1::/32,169.254.169.254 " });

  it("opens exactly its ranges, in every form", () => {
    for (const address of ["10.1.0.1", "10.1.255.255", "::ffff:10.1.2.3", "::10.1.2.3", "64:ff9b::10.1.2.3", "fd00:1::5", "169.254.169.254"]) {
      expect([address, policy.refusal(address)]).toEqual([address, null]);
    }
    for (const address of ["10.2.0.1", "10.0.255.255", "127.0.0.1", "fd00:2::1", "169.254.169.253", "::ffff:10.2.0.1"]) {
      expect([address, policy.refusal(address)]).not.toEqual([address, null]);
    }
  });

  it("reads ALLOW_PRIVATE_TARGETS false and unset alike, and refuses bad values naming the variable", () => {
    expect(AddressPolicy.fromEnv({}).settings).toEqual({ allowPrivateTargets: false, allowedTargetCidrs: [] });
    expect(AddressPolicy.fromEnv({ ALLOW_PRIVATE_TARGETS: "false", ALLOWED_TARGET_CIDRS: "" }).settings).toEqual({ allowPrivateTargets: false, allowedTargetCidrs: [] });
    expect(() => AddressPolicy.fromEnv({ ALLOW_PRIVATE_TARGETS: "yes" })).toThrow("invalid environment: ALLOW_PRIVATE_TARGETS: must be true or false");
    expect(() => AddressPolicy.fromEnv({ ALLOWED_TARGET_CIDRS: "10.0.0.0/8,office,10.0.0.0/33" })).toThrow(
      "invalid environment: ALLOWED_TARGET_CIDRS: office, 10.0.0.0/33: must be CIDR ranges such as 10.1.0.0/16 or fd00::/8, comma-separated",
    );
  });
});

describe("names resolved by a lookup", () => {
  it("keeps the permitted addresses, and refuses when none is", () => {
    const only = new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: ["127.0.0.1/32"] });
    expect(only.permitted(["127.0.0.2", "127.0.0.1"])).toEqual(["127.0.0.1"]);
    expect(() => only.permitted(["127.0.0.2", "10.0.0.1"])).toThrow("refused to connect to 127.0.0.2: loopback address");
  });

  it("hands sockets only permitted addresses (localhost through the system resolver)", async () => {
    const lookupOf = (policy: AddressPolicy) =>
      new Promise<unknown>((resolve) =>
        policy.lookup()("localhost", { all: true }, (error, addresses) => resolve(error ? (error as Error).message : addresses)),
      );
    expect(await lookupOf(strict)).toMatch(/^refused to connect to (127\.0\.0\.1|::1): loopback address/);
    const v4Only = new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: ["127.0.0.0/8"] });
    expect(await lookupOf(v4Only)).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });
});

describe("save-time targets", () => {
  const violationsOf = (run: () => void): string[] => {
    try {
      run();
      return [];
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return error.violations.map((v) => `${v.field}: ${v.rule}`);
    }
  };

  it("refuses literal blocked addresses and localhost in monitors, naming each field", () => {
    const config = parseMonitorConfig("http", {
      name: "m",
      periodicity: "1m",
      url: "http://localhost:8080/health",
      openTelemetry: { endpoint: "http://[::ffff:10.0.0.5]:4318", headers: [] },
    });
    expect(violationsOf(() => strict.assertTargetsAllowed(monitorTargets("http", config)))).toEqual([
      "monitor.url: refused: localhost (127.0.0.1) is a loopback address; set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
      "monitor.openTelemetry.endpoint: refused: ::ffff:a00:5 is a private address (RFC 1918) (IPv4-mapped form of 10.0.0.5); set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
    ]);
    const tcp = parseMonitorConfig("tcp", { name: "m", periodicity: "1m", uri: "169.254.169.254:80" });
    expect(violationsOf(() => strict.assertTargetsAllowed(monitorTargets("tcp", tcp)))).toEqual([
      "monitor.uri: refused: 169.254.169.254 is a link-local address; set ALLOWED_TARGET_CIDRS to allow it",
    ]);
  });

  it("leaves names, public addresses and DNS monitors to the connection", () => {
    const names = parseMonitorConfig("tcp", { name: "m", periodicity: "1m", uri: "db.internal:5432" });
    expect(violationsOf(() => strict.assertTargetsAllowed(monitorTargets("tcp", names)))).toEqual([]);
    const publicUrl = parseMonitorConfig("http", { name: "m", periodicity: "1m", url: "https://8.8.8.8/" });
    expect(violationsOf(() => strict.assertTargetsAllowed(monitorTargets("http", publicUrl)))).toEqual([]);
    expect(monitorTargets("dns", parseMonitorConfig("dns", { name: "m", periodicity: "1m", uri: "localhost" }))).toEqual([]);
  });

  it("names the user-supplied URL of each channel type, and none for the operator's providers", () => {
    const slack = { type: "slack" as const, config: parseProviderConfig("slack", { webhookUrl: "http://127.0.0.1/hook" }) };
    expect(violationsOf(() => strict.assertTargetsAllowed(channelTargets(slack)))).toEqual([
      "notification.slack.webhookUrl: refused: 127.0.0.1 is a loopback address; set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
    ]);
    const ntfy = { type: "ntfy" as const, config: parseProviderConfig("ntfy", { topic: "t", serverUrl: "http://10.0.0.5" }) };
    expect(channelTargets(ntfy)).toEqual([{ field: "notification.ntfy.serverUrl", target: "http://10.0.0.5" }]);
    const ntfyDefault = { type: "ntfy" as const, config: parseProviderConfig("ntfy", { topic: "t" }) };
    expect(channelTargets(ntfyDefault)).toEqual([]);
    const pagerduty = { type: "pagerduty" as const, config: parseProviderConfig("pagerduty", { integrationKey: "k" }) };
    expect(channelTargets(pagerduty)).toEqual([]);
  });
});
