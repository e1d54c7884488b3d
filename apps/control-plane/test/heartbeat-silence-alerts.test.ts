/**
 * The alert of a heartbeat gone silent, in every provider's text: a heartbeat monitor linked to a channel of each of
 * the twelve types, every provider's API a local server (a real SMTP server for email), the sweep on the test's clock.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { PROVIDER_TYPES, formatTime } from "@vigil/domain";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel, localBlocks, localProviderEnv } from "./support/channels";

const SILENCE = "no ping since 2026-11-29 07:00:00 UTC, expected by 2026-11-29 07:01:30 UTC";

/** A mail's text as a reader sees it: quoted-printable soft breaks joined and escapes read. */
const readableMail = (raw: string) => raw.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe.each(BACKENDS)("the alert of a silent heartbeat (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let provider: ProviderServer;
  const mails: string[] = [];
  let now = new Date("2026-11-29T06:00:00Z");
  const smtp = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push(Buffer.concat(chunks).toString("utf8"));
        callback();
      });
    },
  });

  beforeAll(async () => {
    provider = await startProviderServer();
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    api = await startTestApi(backend, {
      clock: () => now,
      // The test sweeps on its clock: the pipeline's own timer would race it.
      pipeline: { heartbeatSweepMs: 0 },
      providerEnv: localProviderEnv(provider.url, (smtp.server.address() as AddressInfo).port),
    });
    ws = await api.workspace();
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });


  test("says there was no ping since the last success, by which deadline, with reason silence, in every provider's message and the webhook's payload", async () => {
    const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "nightly-backup", active: true, periodSeconds: 60n, graceSeconds: 30n } });
    const id = monitor!.id;
    const channels = api.notificationClient(ws.write.key);
    for (const type of PROVIDER_TYPES) await channels.createNotification({ notification: channel(type, localBlocks(provider.url)[type], { name: type, monitorIds: [id] }) });

    now = new Date("2026-11-29T07:00:00Z");
    expect((await api.fetch(new URL(monitor!.pingUrl).pathname)).status).toBe(200);
    now = new Date("2026-11-29T07:05:00Z");
    expect(await api.pipeline.silence.sweep()).toBe(1);

    await eventually(() => expect([provider.received.length, mails.length]).toEqual([PROVIDER_TYPES.length - 1, 1]), 20_000);
    const texts = [
      ...provider.received.map((r) => (r.form ? [...r.form.values()].join("\n") : r.body)),
      readableMail(mails[0]!),
    ];
    expect(texts.filter((text) => !(text.includes(SILENCE) && text.includes("silence") && text.includes("nightly-backup")))).toEqual([]);
    // No target to name: not "nightly-backup ()".
    expect(texts.filter((text) => text.includes("nightly-backup ()"))).toEqual([]);

    const hook = provider.received.find((r) => r.url === "/hook")!.json as { type: string; data: { error: string; reason: string; regions: unknown[]; text: string } };
    expect(hook.type).toBe("monitor.failed");
    expect(hook.data).toMatchObject({ error: SILENCE, reason: "silence", regions: [] });
    expect(hook.data.text.split("\n")[0]).toBe(`nightly-backup is down: ${SILENCE} (silence)`);

    // The incident keeps the same words.
    const [incident] = (await api.incidents(ws.read.key).listIncidents({ monitorId: id })).incidents;
    expect(incident).toMatchObject({ error: SILENCE, reason: "silence" });
  });

  test("a failure ping says what the job reported, with reason job_failed", async () => {
    const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "export", active: true, periodSeconds: 3600n } });
    const channels = api.notificationClient(ws.write.key);
    await channels.createNotification({ notification: channel("webhook", localBlocks(provider.url).webhook, { name: "export hook", monitorIds: [monitor!.id] }) });
    const path = new URL(monitor!.pingUrl).pathname;
    expect((await api.fetch(`${path}/3`)).status).toBe(200);
    const [incident] = (await api.incidents(ws.read.key).listIncidents({ monitorId: monitor!.id })).incidents;
    expect(incident).toMatchObject({ error: "the job exited with code 3", reason: "job_failed" });
    const hook = await eventually(() => {
      const found = provider.received.map((r) => r.json as { type: string; data: { monitor: { id: string }; error: string; reason: string } }).find((j) => j?.data?.monitor?.id === monitor!.id);
      if (!found) throw new Error("no alert yet");
      return found;
    });
    expect(hook).toMatchObject({ type: "monitor.failed", data: { error: "the job exited with code 3", reason: "job_failed" } });

    expect((await api.fetch(path)).status).toBe(200);
    expect((await api.fetch(`${path}/fail`)).status).toBe(200);
    const [second] = (await api.incidents(ws.read.key).listIncidents({ monitorId: monitor!.id, openOnly: true })).incidents;
    expect(second).toMatchObject({ error: "the job reported a failure", reason: "job_failed" });
  });

  test("a monitor never pinged says since when it was watched", async () => {
    now = new Date("2026-11-29T08:00:00Z");
    const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "never", active: true, periodSeconds: 60n, graceSeconds: 0n } });
    const watched = new Date(Number(monitor!.updatedAt!.seconds) * 1000 + Math.floor(monitor!.updatedAt!.nanos / 1e6));
    now = new Date(watched.getTime() + 86_400_000);
    expect(await api.pipeline.silence.sweep()).toBe(1);
    const [incident] = (await api.incidents(ws.read.key).listIncidents({ monitorId: monitor!.id })).incidents;
    expect(incident).toMatchObject({ reason: "silence", error: `no ping yet (watched since ${formatTime(watched)}), expected by ${formatTime(new Date(watched.getTime() + 60_000))}` });
  });
});
