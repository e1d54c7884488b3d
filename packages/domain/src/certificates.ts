/**
 * What an HTTPS check records of the server's certificate, and when a monitor
 * warns that it expires (docs/checks.md "Certificates").
 */

const DAY_MS = 86_400_000;

/** The certificate of one HTTPS check, as results carry it (ISO 8601 dates, which JSON keeps). */
export interface CertificateInfo {
  /** The leaf's notAfter. */
  notAfter: string;
  /** The leaf's issuer as a distinguished name, most specific part first ("CN=R11, O=Let's Encrypt, C=US"). */
  issuer: string;
  /** The leaf's subject alternative names as Node words them ("DNS:example.com", "IP Address:127.0.0.1"). */
  subjectAltNames: string[];
  /**
   * The earliest notAfter of the chain the check verified: the leaf's, or that of an intermediate
   * expiring before it, since the server stops being trusted at the first expiry, whichever it is.
   */
  chainNotAfter: string;
}

const isDate = (value: unknown): value is string => typeof value === "string" && !Number.isNaN(Date.parse(value));

/** Whether a value read from a result message (written by any agent version) is a certificate this version can use. */
export const isCertificateInfo = (value: unknown): value is CertificateInfo => {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    isDate(c.notAfter) &&
    isDate(c.chainNotAfter) &&
    typeof c.issuer === "string" &&
    Array.isArray(c.subjectAltNames) &&
    c.subjectAltNames.every((name) => typeof name === "string")
  );
};

/** Whole days left at `at` until the chain's earliest expiry; negative once it has passed. */
export const certificateDaysLeft = (certificate: Pick<CertificateInfo, "chainNotAfter">, at: Date): number =>
  Math.floor((Date.parse(certificate.chainNotAfter) - at.getTime()) / DAY_MS);

/** The days left at which monitor.certificate_expiring is sent again after the monitor's own threshold. */
export const CERTIFICATE_REMINDER_DAYS = [7, 1] as const;

/**
 * How many warnings a certificate with `daysLeft` has earned under a
 * monitor's certificateExpiryDays: 0 while it has at least that many days
 * (or the setting is 0), 1 once it has fewer, one more at 7 days left and at
 * 1 (those below the setting only). A warning is sent each time this number
 * grows; a check that jumps several steps sends one.
 */
export function certificateWarningStage(daysLeft: number, expiryDays: number): number {
  if (expiryDays <= 0 || daysLeft >= expiryDays) return 0;
  return 1 + CERTIFICATE_REMINDER_DAYS.filter((days) => days < expiryDays && daysLeft <= days).length;
}
