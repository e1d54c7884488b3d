import { once } from "node:events";
import { createServer, type ServerResponse, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseMonitorConfig } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import { CheckThreads, MAX_CHECK_THREADS, defaultCheckThreads } from "../src/check-threads";
import type { CheckThreadSettings } from "../src/check-thread-messages";
import { loadConfig } from "../src/config";
import { recordingLogger } from "../../../test/recording-logger";

const settings = (changes: Partial<CheckThreadSettings> = {}): CheckThreadSettings => ({
  dnsServers: undefined,
  addressPolicy: { allowPrivateTargets: true, allowedTargetCidrs: [] },
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
  /** Requests to /held, answered only when a test ends them. */
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === "/held") return void server.emit("held", held.push(response));
      response.writeHead(request.url === "/missing" ? 404 : 200).end("ok");
    });
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

  it("fails the checks of a thread that dies, logs it at error, and starts another thread in its place", async () => {
    const { lines, logger } = recordingLogger();
    const threads = await CheckThreads.start(1, settings(), logger);
    try {
      const arrived = once(server, "held");
      const inFlight = threads.run(job(`${origin}/held`));
      await arrived;
      await threads.pool.threads[0]!.terminate();

      await expect(inFlight).rejects.toThrow("worker exited with code: 1");
      expect(lines.filter((line) => line.level === "error").map((line) => line.message)).toEqual(["a check thread stopped; starting another"]);
      expect((await threads.run(job(`${origin}/ok`))).statusCode).toBe(200);
      expect(threads.pool.threads).toHaveLength(1);
    } finally {
      held.splice(0).forEach((response) => response.end());
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
