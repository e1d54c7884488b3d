/**
 * What XML 1.0 cannot hold: control characters other than tab and line
 * breaks, a surrogate without its pair (with the u flag a pair is one code
 * point), and U+FFFE and U+FFFF. The API refuses them in names and titles;
 * text stored before that rule is written without them.
 */
const NOT_XML = /[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|\p{Cs}/gu;

/** A document made by an XML writer, without the characters no markup has and no XML reader takes. */
export const wellFormedXml = (xml: string): string => xml.replace(NOT_XML, "");
