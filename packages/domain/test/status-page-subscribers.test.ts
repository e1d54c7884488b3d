import { SUBSCRIBERS, ValidationError, incidentNoticeKind, noticeReaches, parseSubscription, subscriberRoomLeft, subscribersCsv } from "../src";

const violations = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.violations;
    throw error;
  }
  return [];
};

describe("parseSubscription", () => {
  it("takes an address, lowercased, with its domain, and no components for all of the page", () => {
    expect(parseSubscription({ email: "  Ann@Example.COM ", components: [] })).toEqual({ kind: "email", address: "ann@example.com", domain: "example.com", components: [] });
  });

  it("requires an address that is one", () => {
    expect(violations(() => parseSubscription({ email: "", components: [] }))).toEqual([{ field: "email", rule: "is required" }]);
    expect(violations(() => parseSubscription({ email: "not an address", components: [] }))).toEqual([{ field: "email", rule: "must be an email address" }]);
    const longest = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    expect(longest).toHaveLength(254);
    expect(parseSubscription({ email: longest, components: [] })).toMatchObject({ address: longest });
    expect(violations(() => parseSubscription({ email: `${longest}e`, components: [] }))[0]?.field).toBe("email");
  });

  it("takes components up to the limit, each once", () => {
    const ids = Array.from({ length: SUBSCRIBERS.componentsMax }, (_, i) => `c${i}`);
    expect(parseSubscription({ email: "a@b.test", components: ids }).components).toEqual(ids);
    expect(violations(() => parseSubscription({ email: "a@b.test", components: [...ids, "more"] }))).toEqual([
      { field: "components", rule: `must have at most ${SUBSCRIBERS.componentsMax} entries` },
    ]);
    expect(violations(() => parseSubscription({ email: "a@b.test", components: ["c1", "c1"] }))).toEqual([{ field: "components[1]", rule: "must not repeat c1" }]);
  });

  it("takes a webhook URL instead of an address, not both", () => {
    expect(parseSubscription({ webhook: "https://hooks.example.com/x", components: ["c1"] })).toEqual({ kind: "webhook", url: "https://hooks.example.com/x", components: ["c1"] });
    expect(violations(() => parseSubscription({ webhook: "ftp://x", components: [] }))[0]?.field).toBe("webhook");
    expect(violations(() => parseSubscription({ email: "a@b.test", webhook: "https://x.test", components: [] }))[0]?.field).toBe("webhook");
  });
});

describe("subscriber limits and reach", () => {
  it("lets a page fill up to its limit and no further", () => {
    expect(subscriberRoomLeft(2, 3)).toBe(true);
    expect(subscriberRoomLeft(3, 3)).toBe(false);
  });

  it("tells subscribers of all of the page, and those of a component named", () => {
    expect(noticeReaches([], [])).toBe(true);
    expect(noticeReaches([], ["c1"])).toBe(true);
    expect(noticeReaches(["c1"], ["c1", "c2"])).toBe(true);
    expect(noticeReaches(["c3"], ["c1", "c2"])).toBe(false);
    expect(noticeReaches(["c3"], [])).toBe(false);
  });

  it("names an incident's notice by what happened", () => {
    expect(incidentNoticeKind(true, "investigating")).toBe("incident.created");
    expect(incidentNoticeKind(false, "identified")).toBe("incident.updated");
    expect(incidentNoticeKind(false, "resolved")).toBe("incident.resolved");
    expect(incidentNoticeKind(true, "resolved")).toBe("incident.resolved");
  });
});

describe("subscribersCsv", () => {
  it("writes a header and a row per subscriber, quoting what needs it and escaping formulas", () => {
    const row = { id: "s1", kind: "email", email: "a@b.test", webhookUrl: "", componentIds: ["c1", "c2"], confirmed: true, confirmedAt: "2026-11-29T12:00:00.000Z", createdAt: "2026-11-29T11:00:00.000Z" };
    expect(subscribersCsv([row, { ...row, id: "s2", email: "=HYPERLINK(\"x\")@b.test", confirmed: false, confirmedAt: "" }])).toBe(
      [
        "id,kind,email,webhook_url,component_ids,confirmed,confirmed_at,created_at",
        "s1,email,a@b.test,,c1 c2,true,2026-11-29T12:00:00.000Z,2026-11-29T11:00:00.000Z",
        `s2,email,"'=HYPERLINK(""x"")@b.test",,c1 c2,false,,2026-11-29T11:00:00.000Z`,
        "",
      ].join("\n"),
    );
  });
});
