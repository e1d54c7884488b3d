import { computed, locateField, optional, optionalComputed, planChange, required, withDefault, type BlockSpec } from "../src/schema/index.js";
import { UNKNOWN } from "../src/values/index.js";

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "id"),
    page_id: required("string", "page", { forceNew: true }),
    name: required("string", "name"),
    timeout: withDefault("number", "timeout", 45000),
    degraded_at: optionalComputed("number", "degraded at"),
    regions: withDefault(["set", "string"], "regions", []),
    note: optional("string", "note"),
    status: computed("string", "status", { volatile: true }),
  },
  blocks: {
    open_telemetry: {
      nesting: "single",
      description: "otel",
      block: {
        attributes: { endpoint: withDefault("string", "endpoint", "") },
        blocks: { headers: { nesting: "list", description: "headers", block: { attributes: { key: required("string", "key") } } } },
      },
    },
  },
};

const config = { id: null, page_id: "p1", name: "a", timeout: null, degraded_at: null, regions: null, note: null, status: null, open_telemetry: null };

describe("planChange", () => {
  it("fills in defaults and leaves what the server computes unknown on create", () => {
    const { planned } = planChange(schema, config, config, null);
    expect(planned).toEqual({ ...config, id: UNKNOWN, timeout: 45000, degraded_at: UNKNOWN, regions: [], status: UNKNOWN });
  });

  it("applies defaults inside blocks", () => {
    const withBlock = { ...config, open_telemetry: { endpoint: null, headers: [{ key: "a" }] } };
    expect(planChange(schema, withBlock, withBlock, null).planned.open_telemetry).toEqual({ endpoint: "", headers: [{ key: "a" }] });
  });

  const prior = { ...config, id: "m1", timeout: 45000, degraded_at: 22500, regions: [], status: "active" };
  const proposed = (changes: object) => ({ ...prior, ...changes });

  it("answers the prior state itself when nothing changes", () => {
    const result = planChange(schema, proposed({}), config, prior);
    expect(result.planned).toBe(prior);
    expect(result.requiresReplace).toEqual([]);
  });

  it("keeps computed values on update, but not volatile ones, and names what forces replacement", () => {
    const result = planChange(schema, proposed({ name: "b", page_id: "p2" }), { ...config, name: "b", page_id: "p2" }, prior);
    expect(result.planned).toMatchObject({ id: "m1", degraded_at: 22500, status: UNKNOWN, name: "b" });
    expect(result.requiresReplace).toEqual(["page_id"]);
  });

  it("goes back to the default when the configuration drops a value", () => {
    const changed = { ...prior, timeout: 1000 };
    expect(planChange(schema, changed, config, changed).planned.timeout).toBe(45000);
  });
});

describe("locateField", () => {
  it("maps the domain's camelCase path onto attribute steps, through blocks and list indexes", () => {
    const value = { ...config, open_telemetry: { endpoint: "x", headers: [{ key: "" }] } };
    expect(locateField(schema, "openTelemetry.headers[0].key", value)).toEqual({
      steps: [{ attribute: "open_telemetry" }, { attribute: "headers" }, { index: 0 }, { attribute: "key" }],
      unknown: false,
    });
    expect(locateField(schema, "degradedAt", value).steps).toEqual([{ attribute: "degraded_at" }]);
  });

  it("stops at a set, whose elements Terraform does not address by index", () => {
    expect(locateField(schema, "regions[1]", { ...config, regions: ["a", "b"] }).steps).toEqual([{ attribute: "regions" }]);
  });

  it("tells when the value on the way is not known yet", () => {
    expect(locateField(schema, "name", { ...config, name: UNKNOWN }).unknown).toBe(true);
    expect(locateField(schema, "openTelemetry.endpoint", { ...config, open_telemetry: UNKNOWN }).unknown).toBe(true);
  });
});
