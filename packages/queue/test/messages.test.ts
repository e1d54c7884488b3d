import type { CheckOutcome } from "@vigil/checks";
import { parseMonitorConfig } from "@vigil/domain";
import { decodeResult, encodeResult, resultMessage, type CheckJobData } from "../src/messages";

const job: CheckJobData = {
  monitorId: "m1",
  kind: "tcp",
  trigger: "scheduled",
  config: parseMonitorConfig("tcp", { name: "tcp", periodicity: "1m", uri: "127.0.0.1:9" }),
};

const refused: CheckOutcome = {
  status: "error",
  startedAt: new Date("2025-01-02T03:04:05.000Z"),
  latencyMs: 1.5,
  timing: { dnsMs: null, connectMs: 1.5, tlsMs: null, firstByteMs: null, transferMs: null },
  statusCode: null,
  error: "connection refused (127.0.0.1:9)",
  reason: "connect",
  attempts: 1,
  trace: null,
  durationMs: 1.5,
  certificate: null,
};

const traced: CheckOutcome = {
  ...refused,
  trace: { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" },
};

/** The stream fields of a message as an agent of another version would write it. */
const fieldsOf = (message: Record<string, unknown>) => ["result", JSON.stringify(message)];

describe("result messages", () => {
  it("carry the outcome's failure reason through encoding and decoding", () => {
    const message = resultMessage("hostA-ams:1", job, "hostA-ams", refused);
    expect(message).toMatchObject({ status: "error", error: "connection refused (127.0.0.1:9)", reason: "connect" });
    expect(decodeResult(encodeResult(message))).toEqual(message);
  });

  it("read a message from an agent that sends no reason as having none", () => {
    const { reason: _, ...older } = resultMessage("hostA-ams:2", job, "hostA-ams", refused);
    expect(decodeResult(fieldsOf(older))).toEqual({ ...older, reason: null });
  });

  it("carry the trace id of the traceparent an HTTP check sent", () => {
    const message = resultMessage("hostA-ams:4", job, "hostA-ams", traced);
    expect(message.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(decodeResult(encodeResult(message))).toEqual(message);
    expect(resultMessage("hostA-ams:5", job, "hostA-ams", refused).traceId).toBeNull();
  });

  it("read a message from an agent older than traces, or with a malformed trace id, as having none", () => {
    const { traceId: _, ...older } = resultMessage("hostA-ams:6", job, "hostA-ams", traced);
    expect(decodeResult(fieldsOf(older))).toEqual({ ...older, traceId: null });
    for (const traceId of ["00000000000000000000000000000000", "4BF92F3577B34DA6A3CE929D0E0E4736", "not hex", 42]) {
      expect(decodeResult(fieldsOf({ ...older, traceId }))?.traceId).toBeNull();
    }
  });

  it("carry the certificate an HTTPS check saw, and read none from older agents or one this version cannot read", () => {
    const certificate = {
      notAfter: "2026-12-09T00:00:00.000Z",
      issuer: "CN=Vigil Test CA",
      subjectAltNames: ["DNS:localhost"],
      chainNotAfter: "2026-12-05T00:00:00.000Z",
    };
    const message = resultMessage("hostA-ams:7", job, "hostA-ams", { ...refused, status: "success", error: null, reason: null, certificate });
    expect(decodeResult(encodeResult(message))?.certificate).toEqual(certificate);
    const { certificate: _, ...older } = message;
    expect(decodeResult(fieldsOf(older))?.certificate).toBeNull();
    for (const bad of [{ ...certificate, notAfter: "soon" }, { ...certificate, subjectAltNames: "DNS:localhost" }, "cert"]) {
      expect(decodeResult(fieldsOf({ ...older, certificate: bad }))?.certificate).toBeNull();
    }
  });

  it("read a reason this version does not know as none", () => {
    const newer = { ...resultMessage("hostA-ams:3", job, "hostA-ams", refused), reason: "quantum" };
    expect(decodeResult(fieldsOf(newer))?.reason).toBeNull();
  });
});
