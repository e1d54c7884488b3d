/**
 * Tells whoever keeps or shows something that it changed, by id: a status page (so that no cached copy of it is
 * served again), a workspace's monitors (so that the consoles watching its overview hear of it). Changes made
 * here are published; with a relay (relay.ts), the other control planes of the deployment hear of them too.
 */
export class Changes {
  private readonly listeners = new Set<(id: string) => void>();
  private relay: ((id: string) => void) | undefined;

  subscribe(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A change made here: told to this process's listeners and through the relay to the others. */
  publish(id: string): void {
    this.notify(id);
    this.relay?.(id);
  }

  /** A change told by another control plane: this process's listeners only. */
  notify(id: string): void {
    for (const listener of this.listeners) listener(id);
  }

  relayThrough(send: (id: string) => void): void {
    this.relay = send;
  }
}
