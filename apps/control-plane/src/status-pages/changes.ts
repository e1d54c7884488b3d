/**
 * Tells whoever serves public pages that a page changed (its content, its
 * access, its publication), so that no cached copy of it is served again.
 * The API publishes; the public pages subscribe. With a relay (relay.ts),
 * the other control planes of the deployment hear of it too.
 */
export class PageChanges {
  private readonly listeners = new Set<(pageId: string) => void>();
  private relay: ((pageId: string) => void) | undefined;

  subscribe(listener: (pageId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A change made here: told to this process's listeners and through the relay to the others. */
  publish(pageId: string): void {
    this.notify(pageId);
    this.relay?.(pageId);
  }

  /** A change told by another control plane: this process's listeners only. */
  notify(pageId: string): void {
    for (const listener of this.listeners) listener(pageId);
  }

  relayThrough(send: (pageId: string) => void): void {
    this.relay = send;
  }
}
