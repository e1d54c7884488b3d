/**
 * How often the services sample their event loop's delay for Node's default metrics (prom-client's
 * `nodejs_eventloop_lag_p50_seconds` ... `_p99_seconds`). prom-client's own default, every 10 ms, wakes an idle process
 * a hundred times a second: 0.7-0.8 % of a core for each of the control plane and the agent, about half of what an
 * idle Vigil costs (bench:peer). Sampled every 100 ms, a stall of a tenth of a second or more is always seen, and a
 * shorter one with the odds of its length: 150 samples per 15-s scrape still show a loop that stalls often.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
