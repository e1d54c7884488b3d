import { providerConfig, terraformTests } from "./support/terraform.js";

const URL = "https://probe:url-secret-1@example.com/health";
const HOOK = "https://hooks.example.com/in/path-secret-2?token=query-secret-3";

const CONFIG = `
resource "service_http_monitor" "site" {
  name        = "Website"
  url         = "${URL}"
  periodicity = "1m"
  headers {
    key   = "authorization"
    value = "Bearer header-secret-4"
  }
  open_telemetry {
    endpoint = "https://otel:otel-secret-5@otel.example.com"
    headers {
      key   = "x-api-key"
      value = "otel-header-secret-6"
    }
  }
}

resource "service_notification" "hook" {
  provider_type = "webhook"
  monitor_ids   = [service_http_monitor.site.id]
  webhook {
    endpoint = "${HOOK}"
    headers {
      key   = "authorization"
      value = "Basic header-secret-7"
    }
  }
}

resource "service_notification" "ntfy" {
  provider_type = "ntfy"
  ntfy {
    topic      = "alerts"
    server_url = "https://alerts:ntfy-secret-8@ntfy.example.com"
  }
}
`;

const fx = terraformTests();
const tf = fx.folder();

describe("the provider with a read key, which is answered credentials as fingerprints", () => {
  it("plans no change when the stored credentials are the configured ones, and keeps them in the state on refresh", async () => {
    await tf.configure(CONFIG);
    await tf.apply();
    await tf.write(providerConfig(fx.api.baseUrl, fx.ws.read.key) + CONFIG);
    await tf.plan(0);
    await tf.apply("-refresh-only");
    expect(await tf.stateOf("service_http_monitor.site")).toMatchObject({
      url: URL,
      headers: [{ key: "authorization", value: "Bearer header-secret-4" }],
      open_telemetry: { endpoint: "https://otel:otel-secret-5@otel.example.com", headers: [{ value: "otel-header-secret-6" }] },
    });
    expect(await tf.stateOf("service_notification.hook")).toMatchObject({ webhook: { endpoint: HOOK, headers: [{ value: "Basic header-secret-7" }] } });
    expect(await tf.stateOf("service_notification.ntfy")).toMatchObject({ ntfy: { server_url: "https://alerts:ntfy-secret-8@ntfy.example.com" } });
  });

  it("plans the configured value back when a credential was changed outside Terraform", async () => {
    const id = String((await tf.stateOf("service_http_monitor.site"))?.id);
    await fx.client().updateHTTPMonitor({ id, monitor: { headers: [{ key: "authorization", value: "Bearer changed-by-hand" }] } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_http_monitor.site will be updated in-place");
    expect(plan.stdout).not.toContain("changed-by-hand");
  });
});
