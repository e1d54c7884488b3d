import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { facts, hexColour, summary, title } from "../../text";
import type { AlertMessage } from "../../types";

/**
 * The HTML part of a mail of Vigil's, around what it says. It is JSX rendered
 * by React, which escapes every text and attribute value: monitor names,
 * targets and errors come from users and checked servers, and stay text.
 */
export const mailHtml = (content: ReactNode): string =>
  `<!DOCTYPE html>\n${renderToStaticMarkup(
    <html>
      <body style={{ fontFamily: "sans-serif", fontSize: "14px" }}>{content}</body>
    </html>,
  )}`;

/** An alert: the title in the event's colour, the summary and a table of every fact. */
export const alertHtml = (message: AlertMessage): string =>
  mailHtml(
    <>
      <h2 style={{ color: hexColour(message) }}>{title(message)}</h2>
      <p>{summary(message)}</p>
      <table cellSpacing="0" cellPadding="0">
        <tbody>
          {facts(message).map(({ label, value }) => (
            <tr key={label}>
              <th align="left" style={{ verticalAlign: "top", padding: "2px 16px 2px 0" }}>
                {label}
              </th>
              <td style={{ padding: "2px 0" }}>{value === message.link ? <a href={value}>{value}</a> : value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>,
  );
