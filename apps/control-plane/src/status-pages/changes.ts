/**
 * Tells whoever serves public pages that a page changed (its content, its
 * access, its publication), so that no cached copy of it is served again.
 * The API publishes; the public pages subscribe.
 */
export class PageChanges {
  private readonly listeners = new Set<(pageId: string) => void>();

  subscribe(listener: (pageId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(pageId: string): void {
    for (const listener of this.listeners) listener(pageId);
  }
}
