/**
 * Cuts `text` to at most `maxChars` UTF-16 units, ending in "…" when cut, for
 * providers that refuse a message over their documented field limits rather
 * than shortening it themselves. Never splits a surrogate pair.
 */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return "";
  let end = maxChars - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}
