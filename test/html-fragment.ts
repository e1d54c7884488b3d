import { parseFragment } from "parse5";

interface Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
}

/**
 * What an HTML fragment holds once parsed as a browser parses it (parse5
 * follows the HTML standard): its elements in document order, their
 * attributes, the links' targets and its text.
 */
export function parsedHtml(html: string) {
  const elements: Node[] = [];
  let text = "";
  const walk = (node: Node) => {
    if (node.tagName) elements.push(node);
    if (node.nodeName === "#text") text += node.value ?? "";
    node.childNodes?.forEach(walk);
  };
  walk(parseFragment(html) as unknown as Node);
  return {
    tags: elements.map((e) => e.tagName!),
    attributes: elements.flatMap((e) => (e.attrs ?? []).map((a) => `${a.name}=${a.value}`)),
    links: elements.filter((e) => e.tagName === "a").map((e) => e.attrs?.find((a) => a.name === "href")?.value ?? null),
    text,
  };
}
