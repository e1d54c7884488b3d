import { formatDuration } from "@vigil/domain";
import { facts, plainText, summary } from "../src/text";
import { truncate } from "../src/truncate";
import { sampleMessage } from "./support/messages";
import { MUST_SAY } from "./support/wording";

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [999, "0s"],
    [1_000, "1s"],
    [59_999, "59s"],
    [60_000, "1m"],
    [250_000, "4m 10s"],
    [3_600_000, "1h"],
    [3_720_000, "1h 2m"],
    [3_725_000, "1h 2m"],
    [86_400_000, "1d"],
    [273_600_000, "3d 4h"],
    [90_061_000, "1d 1h"],
  ])("formats %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("the wording", () => {
  it("summarises a failure with the monitor, what happened, the regions and the error", () => {
    const text = summary(sampleMessage("monitor.failed"));

    for (const words of ["Homepage", "https://api.example.com/health", "is down", "hostA-ams", "hostB-fra", "HTTP 503", "http_status"]) {
      expect(text).toContain(words);
    }
  });

  it("summarises a recovery with how long the incident lasted", () => {
    expect(summary(sampleMessage("monitor.recovered"))).toContain("has recovered in hostA-ams, hostB-fra after 4m 10s");
  });

  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)("puts every fact of a %s message in the plain text", (event) => {
    const message = sampleMessage(event);
    const text = plainText(message);

    expect(text.startsWith(summary(message))).toBe(true);
    for (const fact of facts(message)) expect(text).toContain(`${fact.label}: ${fact.value}`);
    for (const words of MUST_SAY[event]) expect(text).toContain(words);
  });

  it("leaves facts a message does not have out", () => {
    const labels = facts(sampleMessage("test")).map((f) => f.label);

    expect(labels).toEqual(["Monitor", "Status", "Link"]);
  });
});

describe("truncate", () => {
  it("keeps text within the limit and marks the cut", () => {
    expect(truncate("abcdef", 6)).toBe("abcdef");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abcdef", 0)).toBe("");
  });

  it("never splits a character made of two UTF-16 units", () => {
    const cut = truncate("ab😀cd", 4);

    expect(cut).toBe("ab…");
    expect(cut.length).toBeLessThanOrEqual(4);
  });
});
