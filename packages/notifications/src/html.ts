const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escapes text for HTML content and quoted attributes. Monitor names,
 * targets and errors come from users and checked servers, so every value is
 * escaped before it goes into an HTML mail or a Telegram message (Telegram
 * knows &lt; &gt; &amp; &quot; and numeric entities, which is all this emits).
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
