import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { Changes } from "../../changes/changes";
import type { PageView } from "./view";
import { statusPageCacheHits, statusPageCacheMisses } from "../../metrics/definitions";

/** How long a page is served from memory at most; a change published on the hub ends it at once. */
export const PAGE_CACHE_MS = 5_000;
/** Past this many entries, expired ones are swept out, so that requests for made-up addresses cannot grow memory. */
const SWEEP_ABOVE = 1_000;

/** A representation made to be answered as it is, many times. */
export interface Made {
  body: string;
  contentType: string;
}

export interface Rendered {
  /** Encoded once, and compressed once for clients that take gzip. */
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
  /** A strong validator of the body, quoted. */
  etag: string;
}

export interface CachedPage {
  view: PageView;
  /** The view in one representation, made once per cached view. */
  render(representation: string, make: (view: PageView) => Made): Rendered;
}

interface Entry {
  expiresAt: number;
  /** null while loading and for addresses with no published page. */
  pageId: string | null;
  page: Promise<CachedPage | null>;
}

/**
 * Public pages by address (a slug or a custom domain), the page lookup
 * included, so that a cached request makes no database query at all and a
 * crowd of visitors during an outage costs one load per page and 5 seconds.
 * Concurrent requests for an address share one load.
 */
export class PublicPageCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    changes: Changes,
    private readonly clock: () => number = Date.now,
  ) {
    changes.subscribe((pageId) => this.forget(pageId));
  }

  /** The page at `address` (a key naming a slug or a host), loaded by `load` when not cached. */
  get(address: string, load: () => Promise<PageView | null>): Promise<CachedPage | null> {
    const now = this.clock();
    const cached = this.entries.get(address);
    if (cached && cached.expiresAt > now) {
      statusPageCacheHits.inc();
      return cached.page;
    }
    statusPageCacheMisses.inc();
    if (this.entries.size >= SWEEP_ABOVE) this.sweep(now);
    const entry: Entry = { expiresAt: now + PAGE_CACHE_MS, pageId: null, page: Promise.resolve(null) };
    entry.page = load().then(
      (view) => {
        if (!view) return null;
        entry.pageId = view.page.id;
        return cachedPage(view);
      },
      (error: unknown) => {
        if (this.entries.get(address) === entry) this.entries.delete(address);
        throw error;
      },
    );
    this.entries.set(address, entry);
    return entry.page;
  }

  /**
   * A page changed: its entries go, and so do those of addresses without a
   * page (or still loading), since the change may be the page that now answers there.
   */
  private forget(pageId: string): void {
    for (const [address, entry] of this.entries) {
      if (entry.pageId === pageId || entry.pageId === null) this.entries.delete(address);
    }
  }

  private sweep(now: number): void {
    for (const [address, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(address);
  }
}

function cachedPage(view: PageView): CachedPage {
  const renders = new Map<string, Rendered>();
  return {
    view,
    render(representation, make) {
      let rendered = renders.get(representation);
      if (!rendered) {
        const { body, contentType } = make(view);
        const bytes = Buffer.from(body);
        const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 32)}"`;
        rendered = { body: bytes, gzipped: gzipSync(bytes), contentType, etag };
        renders.set(representation, rendered);
      }
      return rendered;
    },
  };
}
