import { redactCredentials, redactedCredentialFields, restoreCredentials, secretFingerprint } from "../src";

const fp = (ownerId: string, value: string) => secretFingerprint(ownerId, value);

describe("credentials in configurations", () => {
  const monitor = {
    name: "Site",
    url: "https://user:pass@example.com/health?token=kept",
    headers: [{ key: "authorization", value: "Bearer a" }, { key: "accept", value: "" }],
    openTelemetry: { endpoint: "https://otel.example.com/v1/metrics", headers: [{ key: "x-api-key", value: "k" }] },
  };

  it("shows header values and URL user info as fingerprints, and a monitor URL's path and query as they are", () => {
    expect(redactCredentials(monitor, "m1")).toEqual({
      name: "Site",
      url: `https://fingerprint:${fp("m1", "user:pass")}@example.com/health?token=kept`,
      headers: [{ key: "authorization", value: `fingerprint:${fp("m1", "Bearer a")}` }, { key: "accept", value: "" }],
      openTelemetry: { endpoint: "https://otel.example.com/v1/metrics", headers: [{ key: "x-api-key", value: `fingerprint:${fp("m1", "k")}` }] },
    });
  });

  it("shows everything after a webhook endpoint's host as a fingerprint; an endpoint without a path keeps it", () => {
    const block = { webhook: { endpoint: "https://hooks.example.com/in/abc?t=1#x", headers: [] } };
    expect(redactCredentials(block, "c1").webhook.endpoint).toBe(`https://hooks.example.com/fingerprint:${fp("c1", "/in/abc?t=1#x")}`);
    const bare = { webhook: { endpoint: "https://hooks.example.com", headers: [] } };
    expect(redactCredentials(bare, "c1")).toBe(bare);
  });

  it("answers the same object for a configuration without credentials, and redacts a redacted one to itself", () => {
    const plain = { url: "https://example.com/", headers: [{ key: "accept", value: "" }] };
    expect(redactCredentials(plain, "m1")).toBe(plain);
    const redacted = redactCredentials(monitor, "m1");
    expect(redactCredentials(redacted, "m1")).toBe(redacted);
  });

  it("takes back what stands for the stored value in the same place, and names every other fingerprint", () => {
    const redacted = redactCredentials(monitor, "m1");
    expect(restoreCredentials(redacted, monitor, "m1")).toEqual(monitor);
    // Another owner's fingerprint, or another value's, stands for nothing here.
    const foreign = redactCredentials(monitor, "m2");
    expect(restoreCredentials(foreign, monitor, "m1")).toEqual(foreign);
    expect(redactedCredentialFields(foreign, "monitor").map((v) => v.field)).toEqual([
      "monitor.url",
      "monitor.headers[0].value",
      "monitor.openTelemetry.headers[0].value",
    ]);
    expect(redactedCredentialFields(monitor, "monitor")).toEqual([]);
  });
});
