import { makeBadge } from "badge-maker";
import type { PageIndicator } from "@vigil/domain";
import type { PageView } from "./view";
import { wellFormedXml } from "./xml";

const COLOURS: Record<PageIndicator, string> = { none: "brightgreen", minor: "yellow", major: "orange", critical: "red" };

/** The overall status as a badge (SVG, with the words in it and in its title). */
export function badgeOf(view: PageView): string {
  return wellFormedXml(makeBadge({ label: view.page.title, message: view.status.description, color: COLOURS[view.status.indicator] }));
}
