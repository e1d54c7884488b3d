import { incidentImpactOf, markdownHtml, worstStatus } from "../src";
import { parsedHtml as parsed } from "../../../test/html-fragment";

describe("incident Markdown", () => {
  it("renders Markdown's own formatting", () => {
    const html = parsed(markdownHtml("## Cause\n\nA **cable** was *cut*:\n\n- one\n- `two`\n\n> quoted"));
    expect(html.tags).toEqual(["h2", "p", "strong", "em", "ul", "li", "li", "code", "blockquote", "p"]);
  });

  it.each([
    ["a script", "<script>alert(1)</script>"],
    ["an event handler", '<img src=x onerror="alert(1)">'],
    ["an iframe", "<iframe src=\"about:blank\"></iframe>"],
    ["a style", "<style>body{display:none}</style>"],
    ["an inline tag", 'text <b onclick="alert(1)">bold</b>'],
    ["an HTML comment", "<!-- hidden -->"],
  ])("shows raw HTML (%s) as text, never as markup", (_, source) => {
    const html = parsed(markdownHtml(source));
    expect(html.tags.filter((t) => t !== "p")).toEqual([]);
    expect(html.attributes).toEqual([]);
    expect(html.text).toContain(source.includes("<!--") ? "<!-- hidden -->" : source.slice(source.indexOf("<"), source.indexOf("<") + 4));
  });

  it.each([
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](javascript&#58;alert(1))",
    "[click](  javascript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](file:///etc/passwd)",
    "[click](/relative/path)",
    "<javascript:alert(1)>",
    "[ref]\n\n[ref]: javascript:alert(1)",
  ])("leaves %s inert: no link", (source) => {
    const html = parsed(markdownHtml(source));
    expect(html.links).toEqual([]);
    expect(html.tags.filter((t) => t !== "p")).toEqual([]);
  });

  it("makes http, https and mailto links, which pass nothing on", () => {
    const html = parsed(markdownHtml("[a](https://example.com/x) [b](http://example.com) [c](mailto:ops@example.com) and https://status.example.com"));
    expect(html.links).toEqual(["https://example.com/x", "http://example.com", "mailto:ops@example.com", "https://status.example.com"]);
    expect(html.attributes.filter((a) => a.startsWith("rel="))).toEqual(Array(4).fill("rel=nofollow ugc noopener noreferrer"));
  });

  it("shows no images: a page loads nothing from elsewhere", () => {
    const html = parsed(markdownHtml("![logo](https://example.com/logo.png)"));
    expect(html.tags).not.toContain("img");
  });
});

describe("incident impact", () => {
  it("is Statuspage's impact of the worst component named", () => {
    expect(incidentImpactOf([])).toBe("none");
    expect(incidentImpactOf([{ impact: "degraded_performance" }])).toBe("minor");
    expect(incidentImpactOf([{ impact: "degraded_performance" }, { impact: "partial_outage" }])).toBe("major");
    expect(incidentImpactOf([{ impact: "major_outage" }, { impact: "partial_outage" }])).toBe("critical");
  });

  it("makes a component's status the worst of its monitor's and the impacts written", () => {
    expect(worstStatus([])).toBe("operational");
    expect(worstStatus(["operational", "degraded_performance"])).toBe("degraded_performance");
    expect(worstStatus(["major_outage", "degraded_performance"])).toBe("major_outage");
  });
});
