import { z } from "zod";
import { LIMITS } from "./limits";
import { nonEmptyText } from "./rules";
import { parseOrThrow } from "./validation";

/**
 * How long access to a protected status page lasts and how fast it may be
 * guessed at (docs/status-pages.md, "Access control").
 */
export const PAGE_ACCESS = {
  /** A session cookie, from sign-in; a change of who may read the page ends it sooner. */
  sessionDays: 30,
  /** An emailed sign-in link, single-use. */
  signInLinkMinutes: 15,
  /** Wrong passwords (or emailed-link requests) per client address and page before 429. */
  signInAttempts: 10,
  signInWindowSeconds: 60,
} as const;

const signInEmail = z.object({ email: nonEmptyText(LIMITS.emailMaxChars).pipe(z.email("must be an email address")) });

/** The address a visitor asks a sign-in link for, and its lowercase domain (compared with authEmailDomains). */
export function parseSignInEmail(email: unknown): { address: string; domain: string } {
  const address = parseOrThrow(signInEmail, { email: typeof email === "string" ? email.trim() : email }, "").email;
  return { address, domain: emailDomainOf(address) };
}

/** An address's domain, lowercase: what authEmailDomains holds. */
export const emailDomainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();
