import { LIMITS, ValidationError, checkUpdateCount, parseIncident, parseIncidentChanges, parseIncidentUpdate } from "../src";

const valid = { title: "Checkout errors", status: "investigating", message: "Looking" };

/** The violations a call throws, as "field: rule". */
function violations(call: () => unknown): string[] {
  try {
    call();
  } catch (error) {
    if (error instanceof ValidationError) return error.violations.map((v) => `${v.field}: ${v.rule}`);
    throw error;
  }
  return [];
}

describe("a status page incident's rules", () => {
  it("takes a title of 1 to 256 characters", () => {
    expect(parseIncident({ ...valid, title: "t".repeat(LIMITS.incidentTitleMaxChars) }).title).toHaveLength(256);
    expect(violations(() => parseIncident({ ...valid, title: "t".repeat(257) }))).toEqual(["incident.title: must be at most 256 characters"]);
    expect(violations(() => parseIncident({ ...valid, title: "" }))).toEqual(["incident.title: must not be empty"]);
  });

  it("takes a message of 1 to 10000 characters, on create and in an update", () => {
    expect(parseIncident({ ...valid, message: "m".repeat(LIMITS.incidentMessageMaxChars) }).message).toHaveLength(10_000);
    expect(violations(() => parseIncident({ ...valid, message: "m".repeat(10_001) }))).toEqual(["incident.message: must be at most 10000 characters"]);
    expect(violations(() => parseIncident({ ...valid, message: "" }))).toEqual(["incident.message: must not be empty"]);
    expect(parseIncidentUpdate({ status: "resolved", message: "m".repeat(10_000) }).message).toHaveLength(10_000);
    expect(violations(() => parseIncidentUpdate({ status: "resolved", message: "m".repeat(10_001) }))).toEqual(["message: must be at most 10000 characters"]);
  });

  it("names at most 25 components, each once, with an impact", () => {
    const components = (n: number) => Array.from({ length: n }, (_, i) => ({ componentId: `c${i}`, impact: "partial_outage" }));
    expect(parseIncident({ ...valid, components: components(LIMITS.incidentComponents) }).components).toHaveLength(25);
    expect(violations(() => parseIncident({ ...valid, components: components(26) }))).toEqual(["incident.components: must have at most 25 entries"]);
    expect(violations(() => parseIncidentChanges({ components: components(26) }))).toEqual(["incident.components: must have at most 25 entries"]);
    expect(violations(() => parseIncident({ ...valid, components: [...components(1), ...components(1)] }))).toEqual(["incident.components[1].componentId: must not repeat component c0"]);
    expect(violations(() => parseIncident({ ...valid, components: [{ componentId: "c", impact: "operational" }] }))).toEqual([
      "incident.components[0].impact: must be one of degraded_performance, partial_outage, major_outage",
    ]);
  });

  it("keeps a postmortem of at most 50000 characters, on a resolved incident only", () => {
    expect(parseIncident({ ...valid, status: "resolved", postmortem: "p".repeat(LIMITS.incidentPostmortemMaxChars) }).postmortem).toHaveLength(50_000);
    expect(violations(() => parseIncident({ ...valid, status: "resolved", postmortem: "p".repeat(50_001) }))).toEqual(["incident.postmortem: must be at most 50000 characters"]);
    expect(violations(() => parseIncident({ ...valid, status: "monitoring", postmortem: "p" }))).toEqual(["incident.postmortem: only a resolved incident can have one"]);
  });

  it("keeps internal only an incident that names an automatic one", () => {
    expect(parseIncident({ ...valid, monitorIncidentId: "i", internal: true }).internal).toBe(true);
    expect(violations(() => parseIncident({ ...valid, internal: true }))).toEqual(["incident.internal: only an incident naming monitorIncidentId can be kept internal"]);
  });

  it("takes updates up to the 200th", () => {
    expect(() => checkUpdateCount(LIMITS.incidentUpdates - 1)).not.toThrow();
    expect(violations(() => checkUpdateCount(LIMITS.incidentUpdates))).toEqual(["incidentId: the incident already has 200 updates, the most one may have"]);
  });
});
