import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseMonitorConfig } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import { CheckThreads, MAX_CHECK_THREADS, defaultCheckThreads } from "../src/check-threads";
import type { CheckThreadSettings } from "../src/check-thread-messages";
import { loadConfig } from "../src/config";
import { DEFAULT_CHECK_THREAD_NICE, DEFAULT_CHECK_THREAD_RT_PRIORITY } from "../src/thread-priority";
import { recordingLogger } from "../../../test/recording-logger";
import { mayUseRealtime, SCHED_OTHER, SCHED_RR, threadScheduling, threadsSince, type ThreadScheduling } from "./support/thread-scheduling";

const settings = (changes: Partial<CheckThreadSettings> = {}): CheckThreadSettings => ({
  dnsServers: undefined,
  addressPolicy: { allowPrivateTargets: true, allowedTargetCidrs: [] },
  nice: 0,
  rtPriority: 0,
  ...changes,
});

const job = (url: string): CheckJobData => ({
  monitorId: "00000000-0000-4000-8000-000000000001",
  kind: "http",
  config: parseMonitorConfig("http", { name: "threads", url, periodicity: "30s", retry: 0, timeout: 5_000 }),
  trigger: "manual",
});

describe("check threads", () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((request, response) => response.writeHead(request.url === "/missing" ? 404 : 200).end("ok"));
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((closed) => server.close(closed)));

  it("runs checks on threads of their own and answers with their outcomes", async () => {
    const threads = await CheckThreads.start(2, settings(), createLogger("silent", "test"));
    try {
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => threads.run(job(`${origin}/${i % 2 ? "ok" : "missing"}`))));
      expect(outcomes.map((o) => o.statusCode)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 200 : 404)));
      // A Date of the main thread's realm (Jest's own Date is another).
      expect(Object.prototype.toString.call(outcomes[0]!.startedAt)).toBe("[object Date]");
      expect(outcomes[1]!.status).toBe("success");
      expect(outcomes[0]!.reason).toBe("http_status");
    } finally {
      await threads.close();
    }
  });

  it("applies the agent's address policy on the thread: loopback is refused unless opened", async () => {
    const threads = await CheckThreads.start(1, settings({ addressPolicy: { allowPrivateTargets: false, allowedTargetCidrs: [] } }), createLogger("silent", "test"));
    try {
      const outcome = await threads.run(job(`${origin}/ok`));
      expect(outcome).toMatchObject({ status: "error", reason: "blocked" });
    } finally {
      await threads.close();
    }
  });

  it("gives each check thread the nice value asked, and leaves the main thread's alone", async () => {
    const before = threadScheduling();
    const { logger, lines } = recordingLogger();
    // A higher nice value than the process's needs no privilege, so this holds for any user.
    const threads = await CheckThreads.start(2, settings({ nice: 7 }), logger);
    try {
      expect(threadsSince(before).filter((thread) => thread.nice === 7)).toHaveLength(2);
      expect(threadScheduling().get(String(process.pid))!.nice).toBe(before.get(String(process.pid))!.nice);
      expect(lines).toEqual([{ level: "info", fields: expect.objectContaining({ threads: 2, nice: 7, rtPriority: 0 }), message: "check threads started and warmed up on loopback" }]);
      expect((await threads.run(job(`${origin}/ok`))).statusCode).toBe(200);
    } finally {
      await threads.close();
    }
  });

  it("puts each check thread under the real-time scheduler where the system allows it, and says so where not", async () => {
    const before = threadScheduling();
    const { logger, lines } = recordingLogger();
    const threads = await CheckThreads.start(2, settings({ rtPriority: 1 }), logger);
    try {
      const added = threadsSince(before);
      expect(threadScheduling().get(String(process.pid))).toMatchObject({ policy: SCHED_OTHER, rtPriority: 0 });
      // Root, or a process given CAP_SYS_NICE or RLIMIT_RTPRIO, gets it; any other takes the refusal's path.
      if (mayUseRealtime(1)) {
        expect(added.filter((thread) => thread.policy === SCHED_RR && thread.rtPriority === 1)).toHaveLength(2);
        expect(lines).toEqual([{ level: "info", fields: expect.objectContaining({ rtPriority: 1 }), message: "check threads started and warmed up on loopback" }]);
      } else {
        expect(added.filter((thread) => thread.policy !== SCHED_OTHER)).toEqual([]);
        expect(lines[0]!.fields).toMatchObject({ rtPriority: null });
        expect(lines[1]!.message).toContain("check threads run under the ordinary scheduler: CHECK_THREAD_RT_PRIORITY was refused");
      }
      expect((await threads.run(job(`${origin}/ok`))).statusCode).toBe(200);
    } finally {
      await threads.close();
    }
  });

  // The configuration takes -20 to 19 and 0 to 99 (checked below); Linux gives these values to no one, so each test
  // takes the refusal's path whoever runs it.
  it.each([
    {
      setting: "CHECK_THREAD_NICE",
      asked: { nice: -21 },
      unchanged: (thread: ThreadScheduling) => thread.nice !== -21,
      refusal: "check threads run at the agent's own priority: CHECK_THREAD_NICE was refused",
    },
    {
      setting: "CHECK_THREAD_RT_PRIORITY",
      asked: { rtPriority: 100 },
      unchanged: (thread: ThreadScheduling) => thread.policy === SCHED_OTHER,
      refusal: "check threads run under the ordinary scheduler: CHECK_THREAD_RT_PRIORITY was refused",
    },
  ])("runs checks where $setting is refused, the threads as they were, and says why", async ({ asked, unchanged, refusal }) => {
    const before = threadScheduling();
    const { logger, lines } = recordingLogger();
    const threads = await CheckThreads.start(1, settings(asked), logger);
    try {
      const added = threadsSince(before);
      expect(added.length).toBeGreaterThan(0);
      expect(added.filter((thread) => !unchanged(thread))).toEqual([]);
      expect(lines.map((line) => line.message)).toEqual(["check threads started and warmed up on loopback", expect.stringContaining(refusal)]);
      const [field] = Object.keys(asked);
      expect(lines[0]!.fields).toMatchObject({ [field!]: null });
      expect(lines[1]!.fields).toMatchObject({ ...asked, reason: expect.stringMatching(/\S/) });
      expect((await threads.run(job(`${origin}/ok`))).statusCode).toBe(200);
    } finally {
      await threads.close();
    }
  });

  it("uses the cores the main thread leaves, at least one and at most four", () => {
    expect([1, 2, 3, 8, 64].map(defaultCheckThreads)).toEqual([1, 1, 2, 4, 4]);
  });
});

describe("CHECK_THREADS", () => {
  const env = (threads: string | undefined) => ({ REGION: "hostA-ams", CHECK_THREADS: threads });

  it("defaults to the cores the main thread leaves, and takes a whole number up to the cap", () => {
    expect(loadConfig(env(undefined)).checkThreads).toBe(defaultCheckThreads());
    expect(loadConfig(env("3")).checkThreads).toBe(3);
    expect(loadConfig(env(String(MAX_CHECK_THREADS))).checkThreads).toBe(MAX_CHECK_THREADS);
  });

  it.each(["0", "17", "1.5", "two"])("refuses %s, naming the variable and the range", (value) => {
    expect(() => loadConfig(env(value))).toThrow(`CHECK_THREADS: must be a whole number from 1 to ${MAX_CHECK_THREADS}`);
  });
});

describe("CHECK_THREAD_NICE", () => {
  const env = (nice: string | undefined) => ({ REGION: "hostA-ams", CHECK_THREAD_NICE: nice });

  it("defaults to -10, and takes a nice value from -20 to 19", () => {
    expect(DEFAULT_CHECK_THREAD_NICE).toBe(-10);
    expect(loadConfig(env(undefined)).checkThreadNice).toBe(-10);
    expect(loadConfig(env("")).checkThreadNice).toBe(-10);
    expect([-20, 0, 19].map((nice) => loadConfig(env(String(nice))).checkThreadNice)).toEqual([-20, 0, 19]);
  });

  it.each(["-21", "20", "1.5", "low"])("refuses %s, naming the variable and the range", (value) => {
    expect(() => loadConfig(env(value))).toThrow("CHECK_THREAD_NICE: must be a whole number from -20 to 19 (a nice value: lower runs first)");
  });
});

describe("CHECK_THREAD_RT_PRIORITY", () => {
  const env = (priority: string | undefined) => ({ REGION: "hostA-ams", CHECK_THREAD_RT_PRIORITY: priority });

  it("defaults to 1, the lowest real-time priority, and takes 0 (none) to 99", () => {
    expect(DEFAULT_CHECK_THREAD_RT_PRIORITY).toBe(1);
    expect(loadConfig(env(undefined)).checkThreadRtPriority).toBe(1);
    expect(loadConfig(env("")).checkThreadRtPriority).toBe(1);
    expect([0, 1, 99].map((priority) => loadConfig(env(String(priority))).checkThreadRtPriority)).toEqual([0, 1, 99]);
  });

  it.each(["-1", "100", "1.5", "high"])("refuses %s, naming the variable and the range", (value) => {
    expect(() => loadConfig(env(value))).toThrow(
      "CHECK_THREAD_RT_PRIORITY: must be a whole number from 0 to 99 (a real-time priority; 0 for the ordinary scheduler)",
    );
  });
});
