import { z } from "zod";
import { LIMITS } from "./limits";

/**
 * Building blocks for the contract's field rules. Every message is phrased to
 * follow the field's name: "monitor.name: must be at most 256 characters".
 */
export const typed = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`),
});

/** Control characters (C0, DEL, C1) and noncharacters (U+FFFE, U+FFFF, …): no part of text a person reads, and XML cannot hold most. */
const UNREADABLE = /[\p{Cc}\p{Noncharacter_Code_Point}]/u;
/** The same, but for tabs and line breaks, which text of several lines holds. */
const UNREADABLE_IN_PARAGRAPHS = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\p{Noncharacter_Code_Point}]/u;

/** With the u flag a pair is one code point, so only a surrogate without its pair matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether a string can be stored and sent as it is: PostgreSQL's text cannot
 * hold U+0000, and UTF-8 cannot encode a surrogate without its pair.
 */
export const isStorableText = (value: string): boolean => !value.includes("\0") && !LONE_SURROGATE.test(value);

/**
 * A library's message about the caller's text, made sendable: a message that
 * cut a surrogate pair in two cannot be encoded as UTF-8 (nor as gRPC's
 * percent-encoded grpc-message), so a half pair becomes U+FFFD.
 */
export const wellFormed = (message: string): string => message.replace(/\p{Cs}/gu, "\uFFFD");

export const NOT_STORABLE_RULE = "must not contain U+0000 (NUL) or unpaired surrogates";

/** Any text a field stores (bodies, header values, assertion targets), at most `maxChars` long. */
export const text = (maxChars: number) =>
  z.string(typed("a string")).max(maxChars, `must be at most ${maxChars} characters`).refine(isStorableText, NOT_STORABLE_RULE);

export const nonEmptyText = (maxChars: number) => text(maxChars).min(1, "must not be empty");

/** Whether a string is one line a person reads: no control characters, no noncharacters. */
export const isReadableLine = (value: string): boolean => !UNREADABLE.test(value);

/** A line a person reads: a name or a title, without control characters. Empty is allowed. */
export const readableLine = (maxChars: number) =>
  text(maxChars).refine(isReadableLine, "must not contain control characters (line breaks, tabs, U+0000-U+001F, U+007F-U+009F) or noncharacters (U+FFFE, U+FFFF)");

/** A name or a title: a line a person reads, not empty. */
export const requiredLine = (maxChars: number) => readableLine(maxChars).min(1, "must not be empty");

/** Text of several lines a person reads: a description. Empty is allowed. */
export const readableText = (maxChars: number) =>
  text(maxChars).refine((value) => !UNREADABLE_IN_PARAGRAPHS.test(value), "must not contain control characters other than tabs and line breaks, or noncharacters (U+FFFE, U+FFFF)");

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** Whether text reads as a decimal number ("10", "-2.5", "1e3"), as the ordering comparators take it. */
export const isNumericText = (value: string): boolean => NUMERIC.test(value);

export const integer = (range: { min: number; max: number }) => {
  const rule = `must be an integer from ${range.min} to ${range.max}`;
  return z.number(typed("an integer")).int(rule).min(range.min, rule).max(range.max, rule);
};

export const boolean = () => z.boolean(typed("true or false"));

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, typed(`one of ${values.join(", ")}`));

export const list = <T extends z.ZodType>(item: T, max: number) =>
  z.array(item, typed("a list")).max(max, `must have at most ${max} entries`);

/** A list whose entries must all differ (the contract's "set of"). */
export const set = <T extends z.ZodType>(item: T) =>
  z.array(item, typed("a list")).superRefine((values, ctx) => {
    const seen = new Set<unknown>();
    values.forEach((value, index) => {
      if (seen.has(value)) ctx.addIssue({ code: "custom", message: `must not repeat ${String(value)}`, path: [index] });
      seen.add(value);
    });
  });

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110's field-value: no control character but the tab. */
const FIELD_VALUE = /^[^\0-\x08\x0a-\x1f\x7f]*$/;

/** A request or response header name (an HTTP token). */
export const headerName = () => text(256).min(1, "must not be empty").regex(HTTP_TOKEN, "must be a valid HTTP header name");
export const headerValue = () =>
  text(LIMITS.headerValueMaxChars).regex(FIELD_VALUE, "must not contain line breaks or other control characters (a tab is allowed)");

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

/**
 * A URL a user types. The URL parser drops tabs and line breaks and trims
 * spaces, so `https://exa\r\nmple.com` would parse while the text kept them:
 * they are refused instead, with every other control character.
 */
export const httpUrl = (maxChars: number) =>
  nonEmptyText(maxChars)
    .regex(/^[^\0-\x20\x7f]+$/, "must not contain spaces, line breaks or other control characters")
    .refine(isHttpUrl, "must be an absolute http:// or https:// URL");
