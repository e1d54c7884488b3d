/** What a server object needs for an entry to find it. */
export interface Matchable {
  id: string;
  externalId: string;
}

/** An entry and the server object it describes, when there is one. */
export interface Match<E, R> {
  key: string;
  entry: E;
  remote: R | undefined;
  /** Recorded on the object so a later run finds it by key; none for an entry that adopts its object by id. */
  externalId: string | undefined;
}

/** How a file's keys are recorded on server objects: `<project>/<key>`. */
export const externalIdOf = (project: string, key: string) => `${project}/${key}`;

/** The key of an object this project manages, or undefined when it is not one of them. */
export function keyOf(project: string, externalId: string): string | undefined {
  const prefix = `${project}/`;
  return externalId.startsWith(prefix) ? externalId.slice(prefix.length) : undefined;
}

/**
 * Pairs each entry with its server object: by the `id` it adopts, else by the
 * key recorded on the object. Objects that carry a key of this project and no
 * entry claims are `orphans`: the file no longer has them, so they go.
 * Objects without such a key are someone else's and are left alone.
 */
export function matchEntries<E extends { id?: string | undefined }, R extends Matchable>(
  project: string,
  entries: Record<string, E>,
  remotes: readonly R[],
  missing: (key: string, id: string) => void,
): { matches: Match<E, R>[]; orphans: R[] } {
  const byId = new Map(remotes.map((remote) => [remote.id, remote]));
  const byExternalId = new Map(remotes.filter((remote) => remote.externalId !== "").map((remote) => [remote.externalId, remote]));
  const claimed = new Set<string>();
  const matches = Object.entries(entries).map(([key, entry]): Match<E, R> => {
    if (entry.id !== undefined) {
      const remote = byId.get(entry.id);
      if (remote === undefined) missing(key, entry.id);
      else claimed.add(remote.id);
      return { key, entry, remote, externalId: undefined };
    }
    const externalId = externalIdOf(project, key);
    const remote = byExternalId.get(externalId);
    if (remote !== undefined) claimed.add(remote.id);
    return { key, entry, remote, externalId };
  });
  const orphans = remotes.filter((remote) => !claimed.has(remote.id) && keyOf(project, remote.externalId) !== undefined);
  return { matches, orphans };
}
