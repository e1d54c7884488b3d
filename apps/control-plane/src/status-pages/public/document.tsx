import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

/*
 * Vigil's own HTML is JSX rendered by React, which escapes every text and
 * attribute value it writes: user text cannot become markup unless it goes
 * through dangerouslySetInnerHTML, which only the pages' own constant style
 * and script bodies do, and incident Markdown once markdownHtml (@vigil/domain)
 * has escaped every raw tag in it.
 */

/** A whole document from its <html> element. */
export const htmlDocument = (html: ReactElement): string => `<!doctype html>\n${renderToStaticMarkup(html)}\n`;

/** Text as an HTML fragment that shows it as written (Atom's type="html" text). */
export const htmlText = (text: string): string => renderToStaticMarkup(<>{text}</>);
