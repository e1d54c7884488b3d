/**
 * Passes a value on after holding the thread for `ms`: a check's own work once its answer was read,
 * made long enough that a check timed after it would show it in its figures.
 */
export const afterBusyFor =
  (ms: number) =>
  <T>(value: T): T => {
    const until = performance.now() + ms;
    while (performance.now() < until);
    return value;
  };
