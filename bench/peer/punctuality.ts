// How punctually a system probed the targets, from when their requests arrived: the same reading for both systems.
//   interval error = the time between two consecutive requests of one target − the period, for each request that
//                    arrived in the window;
//   missed         = requests that were due in the window and never came: a gap of k periods between two requests
//                    holds k − 1 missed ones; after a target's last request, one is missed once it is half a period
//                    overdue by the window's end; a target without any request is missed every period.

export interface Punctuality {
  /** In the window: requests received, their interval errors (ms), and the ones missed. */
  received: number;
  intervalErrors: number[];
  missed: number;
}

/** `arrivals` by target (epoch ms, ascending), over every one of `targets` targets, in the window [from, to). */
export function punctuality(arrivals: Map<string, number[]>, targets: number, from: number, to: number, periodMs: number): Punctuality {
  const result: Punctuality = { received: 0, intervalErrors: [], missed: 0 };
  const inWindow = (at: number) => at >= from && at < to;
  for (const times of arrivals.values()) {
    let last: number | undefined;
    for (const at of times) {
      if (at >= to) break;
      if (inWindow(at)) {
        result.received++;
        if (last !== undefined) {
          result.intervalErrors.push(at - last - periodMs);
          // The requests due between the two, those in the window.
          const gap = Math.round((at - last) / periodMs);
          for (let k = 1; k < gap; k++) if (inWindow(last + k * periodMs)) result.missed++;
        }
      }
      last = at;
    }
    if (last === undefined) {
      result.missed += Math.floor((to - from) / periodMs);
      continue;
    }
    for (let due = last + periodMs; due + periodMs / 2 <= to; due += periodMs) if (inWindow(due)) result.missed++;
  }
  result.missed += (targets - arrivals.size) * Math.floor((to - from) / periodMs);
  return result;
}
