// How the kernel schedules a process's threads, read where the benchmarks read it too.
export { SCHED_OTHER, threadScheduling, type ThreadScheduling } from "../bench/support/machine";
