/**
 * How often the services sample their event loop's delay for Node's default metrics (prom-client's
 * `nodejs_eventloop_lag_p50_seconds` ... `_p99_seconds`). prom-client's own default, every 10 ms, wakes an idle
 * process a hundred times a second: 0.4 % of a core for each of the control plane and the agent, a third of an idle
 * Vigil (bench:peer at 10 targets: 2.5 % of a core at 10 ms, 1.7 % at 100). Sampled every 100 ms, a stall of a tenth
 * of a second or more is always seen, and a shorter one with the odds of its length: the 150 samples of a 15-s
 * scrape still show a loop that stalls often.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
