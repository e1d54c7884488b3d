import type { Logger } from "pino";

/**
 * Whether one component of an app can use one of its dependencies (Redis, the database), logged when that
 * changes rather than at every failed attempt: while a dependency is away each reconnect or retry fails, several
 * times a second on every connection, and a line for each would bury the rest of the log. The first failure is a
 * warning, those after it are debug lines, and the first success after them says how long it lasted.
 */
export class DependencyState {
  private unavailableSince: number | undefined;

  constructor(
    private readonly logger: Logger,
    readonly component: string,
    private readonly dependency: string,
  ) {}

  /** An attempt to use the dependency failed. */
  failed(error: unknown): void {
    const fields = { component: this.component, dependency: this.dependency, err: error };
    if (this.unavailableSince !== undefined) return this.logger.debug(fields, `${this.dependency} is still unavailable`);
    this.unavailableSince = Date.now();
    this.logger.warn(fields, `${this.dependency} is unavailable`);
  }

  /** The dependency answered. */
  succeeded(): void {
    if (this.unavailableSince === undefined) return;
    const unavailableMs = Date.now() - this.unavailableSince;
    this.unavailableSince = undefined;
    this.logger.info({ component: this.component, dependency: this.dependency, unavailableMs }, `${this.dependency} is available again`);
  }
}
