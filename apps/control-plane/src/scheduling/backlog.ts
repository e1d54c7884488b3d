import type { Job, Queue } from "bullmq";

/** Delayed jobs read at most per call to count those already due (normally none: an agent asking for work moves them). */
const DUE_DELAYED_READ = 1_000;

/** A region's checks that are due and not yet taken by an agent, and how long the oldest of them has waited. */
export interface Backlog {
  depth: number;
  oldestAgeSeconds: number;
}

/** One job-count call, and two cheap range reads only when work is waiting. */
export async function queueBacklog(queue: Queue): Promise<Backlog> {
  // Scheduled checks carry a priority, so due jobs are "prioritized"; checks asked for on demand are "waiting".
  const [counts, [earliestDelayed]] = await Promise.all([queue.getJobCounts("waiting", "prioritized"), queue.getDelayed(0, 0)]);
  // A delayed job that came due stays "delayed" until an agent asks for work, which an agent whose checks have no
  // room does not: those are backlog too.
  const now = Date.now();
  const dueDelayed =
    earliestDelayed && dueAt(earliestDelayed) <= now ? (await queue.getDelayed(0, DUE_DELAYED_READ - 1)).filter((job) => dueAt(job) <= now) : [];
  const depth = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + dueDelayed.length;
  if (depth === 0) return { depth, oldestAgeSeconds: 0 };
  const [waiting, prioritized] = await Promise.all([queue.getWaiting(0, 0), queue.getPrioritized(0, 0)]);
  const dueSince = [...waiting, ...prioritized, ...dueDelayed.slice(0, 1)].filter(Boolean).map(dueAt);
  return { depth, oldestAgeSeconds: dueSince.length > 0 ? Math.max(0, (now - Math.min(...dueSince)) / 1000) : 0 };
}

/** A scheduled job is made ahead of its run and delayed until it is due; it waits from then on. */
const dueAt = (job: Job) => job.timestamp + (job.opts.delay ?? 0);
