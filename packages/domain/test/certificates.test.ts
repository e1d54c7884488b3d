import { certificateDaysLeft, certificateWarningStage, isCertificateInfo } from "../src/certificates";

describe("certificate expiry warnings", () => {
  // Days left, the monitor's certificateExpiryDays, and the warnings earned by then.
  it.each([
    [20, 14, 0],
    [14, 14, 0],
    [13, 14, 1],
    [10, 14, 1],
    [8, 14, 1],
    [7, 14, 2],
    [2, 14, 2],
    [1, 14, 3],
    [0, 14, 3],
    [-3, 14, 3],
    [6, 7, 1],
    [1, 7, 2],
    [1, 2, 2],
    [0, 1, 1],
    [10, 30, 1],
    [0, 0, 0],
    [-5, 0, 0],
  ])("%i days left under certificateExpiryDays %i earn %i warnings", (daysLeft, expiryDays, stage) => {
    expect(certificateWarningStage(daysLeft, expiryDays)).toBe(stage);
  });

  it("counts whole days to the chain's earliest expiry, negative once passed", () => {
    const at = new Date("2026-05-01T10:00:00.000Z");
    expect(certificateDaysLeft({ chainNotAfter: "2026-05-11T11:00:00.000Z" }, at)).toBe(10);
    expect(certificateDaysLeft({ chainNotAfter: "2026-05-11T09:00:00.000Z" }, at)).toBe(9);
    expect(certificateDaysLeft({ chainNotAfter: "2026-04-30T10:00:00.000Z" }, at)).toBe(-1);
  });

  it("reads a certificate only with dates, an issuer and a list of names", () => {
    const valid = { notAfter: "2026-05-11T00:00:00.000Z", chainNotAfter: "2026-05-11T00:00:00.000Z", issuer: "CN=R11", subjectAltNames: ["DNS:a"] };
    expect(isCertificateInfo(valid)).toBe(true);
    expect(isCertificateInfo({ ...valid, notAfter: "never" })).toBe(false);
    expect(isCertificateInfo({ ...valid, subjectAltNames: [1] })).toBe(false);
    expect(isCertificateInfo(null)).toBe(false);
  });
});
