import { heartbeatDeadline, mergeHeartbeatChanges, parseHeartbeatConfig, parsePingSuffix } from "../src/heartbeat";

describe("heartbeatDeadline", () => {
  const since = new Date("2026-03-28T12:00:00Z");

  test("a period: the last success, plus the period, plus the grace", () => {
    const config = parseHeartbeatConfig({ name: "job", periodSeconds: 300, graceSeconds: 60 });
    expect(heartbeatDeadline(config, since).toISOString()).toBe("2026-03-28T12:06:00.000Z");
  });

  test("a cron expression: its next time after the last success in its time zone, plus the grace", () => {
    const config = parseHeartbeatConfig({ name: "job", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600 });
    // 03:00 in Paris on 29 March 2026 is after the clocks went forward: 01:00 UTC.
    expect(heartbeatDeadline(config, since).toISOString()).toBe("2026-03-29T01:10:00.000Z");
  });
});

describe("mergeHeartbeatChanges", () => {
  const period = parseHeartbeatConfig({ name: "job", periodSeconds: 120 });
  const cron = parseHeartbeatConfig({ name: "job", cron: "*/5 * * * *" });

  test("naming a cron expression drops the period, and naming a period drops the cron expression", () => {
    expect(parseHeartbeatConfig(mergeHeartbeatChanges(period, { cron: "0 * * * *" }))).toMatchObject({ cron: "0 * * * *", periodSeconds: null });
    expect(parseHeartbeatConfig(mergeHeartbeatChanges(cron, { periodSeconds: 60 }))).toMatchObject({ cron: "", periodSeconds: 60 });
  });

  test("naming both keeps both, and the rule refuses them together", () => {
    expect(() => parseHeartbeatConfig(mergeHeartbeatChanges(period, { cron: "0 * * * *", periodSeconds: 60 }))).toThrow(/monitor\.cron: must be empty when periodSeconds is given/);
  });
});

describe("parsePingSuffix", () => {
  test.each([
    ["", { kind: "success", exitCode: null }],
    ["start", { kind: "start", exitCode: null }],
    ["fail", { kind: "fail", exitCode: null }],
    ["0", { kind: "success", exitCode: 0 }],
    ["1", { kind: "fail", exitCode: 1 }],
    ["255", { kind: "fail", exitCode: 255 }],
    ["256", null],
    ["-1", null],
    ["log", null],
  ])("%j", (suffix, expected) => {
    expect(parsePingSuffix(suffix)).toEqual(expected);
  });
});
