import MarkdownIt from "markdown-it";

/**
 * Incident messages and postmortems are Markdown written by people and shown to
 * everyone (docs/status-pages.md "Incidents"). markdown-it escapes every
 * character of raw HTML when `html` is off, so no markup a writer types reaches
 * the page: no sanitiser is needed after it. Links are the one way out: only
 * absolute http, https and mailto addresses become links (anything else,
 * `javascript:` and relative paths included, stays text), and images are off
 * so that a page never loads anything from elsewhere.
 */
const LINK = /^(?:https?|mailto):/i;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });
markdown.validateLink = (url: string) => LINK.test(url.trim());
markdown.disable("image");

const renderToken = markdown.renderer.renderToken.bind(markdown.renderer);
markdown.renderer.rules.link_open = (tokens, index, options) => {
  // A writer's link passes no standing on to where it leads, nor the page's address.
  tokens[index]!.attrSet("rel", "nofollow ugc noopener noreferrer");
  return renderToken(tokens, index, options);
};

/** Markdown as an HTML fragment safe to insert into a page as it is. */
export const markdownHtml = (text: string): string => markdown.render(text);

/** Whether a link written in Markdown may become one (the rule above, for docs and tests). */
export const isMarkdownLink = (url: string): boolean => LINK.test(url.trim());
