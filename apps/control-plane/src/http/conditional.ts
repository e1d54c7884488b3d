// What a static answer (a status page, a console file) reads of a request to choose its encoding and skip its body.

/** Whether the client takes gzip (and has not refused it with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  return value.split(",").some((coding) => {
    const [name, ...params] = coding.trim().toLowerCase().split(";");
    return (name === "gzip" || name === "*") && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value) return false;
  return value.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
  });
}
