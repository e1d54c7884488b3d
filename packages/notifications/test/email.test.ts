import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { DeliveryError } from "../src/errors";
import { closeEmailTransports, email } from "../src/providers/email";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { expectFullWording } from "./support/wording";

/** A mail as the SMTP server received it: envelope and raw RFC 5322 text. */
interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** What the server answers to RCPT TO; null accepts. */
let rcptAnswer: { code: number; text: string } | null = null;
let connections = 0;
const mails: ReceivedMail[] = [];

const server = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onConnect(_session, callback) {
    connections += 1;
    callback();
  },
  onRcptTo(_address, _session, callback) {
    if (!rcptAnswer) return callback();
    callback(Object.assign(new Error(rcptAnswer.text), { responseCode: rcptAnswer.code }));
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      mails.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString("utf8"),
      });
      callback();
    });
  },
});

let smtpUrl = "";
const channel: Channel<"email"> = { id: "ch1", name: "ops mail", type: "email", config: { email: "ops@example.com" } };
const settings = () => settingsFor("http://127.0.0.1:9", { SMTP_URL: smtpUrl });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  smtpUrl = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});
beforeEach(() => {
  rcptAnswer = null;
  mails.length = 0;
});
afterAll(async () => {
  closeEmailTransports();
  await new Promise<void>((resolve) => server.close(resolve));
});

// --- reading the raw mail (mailparser is not installed; a few lines of MIME do here) ---

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Splits headers (unfolded, names lower-cased) from the body. */
function parsePart(raw: string): Part {
  const split = raw.indexOf("\r\n\r\n");
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(split + 4) };
}

function decode(part: Part): string {
  const encoding = part.headers.get("content-transfer-encoding");
  if (encoding === "base64") return Buffer.from(part.body, "base64").toString("utf8");
  if (encoding !== "quoted-printable") return part.body;
  const bytes = part.body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => `%${hex}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, "%25"));
}

/** The top-level headers and the decoded text/plain and text/html parts of a multipart/alternative mail. */
function readMail(raw: string) {
  const mail = parsePart(raw);
  const type = mail.headers.get("content-type") ?? "";
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1] ?? "";
  const parts = mail.body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => parsePart(chunk.replace(/^\r\n/, "")));
  const partOf = (mime: string) => parts.find((p) => p.headers.get("content-type")?.startsWith(mime));
  return { headers: mail.headers, type, text: decode(partOf("text/plain")!), html: decode(partOf("text/html")!) };
}

/** The HTML part as a reader sees it: table rows as "Label: value" lines, other tags dropped, entities read. */
const shownHtml = (html: string) =>
  html
    .replace(/<\/th><td[^>]*>/g, ": ")
    .replace(/<\/tr>/g, "\n")
    .replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

async function sendAndRead(message: ReturnType<typeof sampleMessage>) {
  expect(await email.send(message, channel, { settings: settings() })).toEqual({ statusCode: null });
  return readMail(mails.at(-1)!.raw);
}

describe("email", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)(
    "mails a %s message from EMAIL_FROM to the channel as text and HTML alternatives, marked auto-generated",
    async (event) => {
      const mail = await sendAndRead(sampleMessage(event));

      expect(mails.at(-1)).toMatchObject({ from: "alerts@vigil.example", to: ["ops@example.com"] });
      expect(mail.headers.get("from")).toBe("Vigil <alerts@vigil.example>");
      expect(mail.headers.get("to")).toBe("ops@example.com");
      expect(mail.headers.get("subject")).toMatch(/^\[Vigil\] (DOWN|DEGRADED|RECOVERED|CERTIFICATE EXPIRING|CERTIFICATE RENEWED|SLO BURNING|SLO BURN ENDED|TEST): Homepage$/);
      expect(mail.type).toMatch(/^multipart\/alternative;/);
      expect(mail.headers.get("auto-submitted")).toBe("auto-generated");
      expect(mail.headers.get("x-auto-response-suppress")).toBe("OOF, DR, RN, NRN, AutoReply");
      expect(mail.headers.get("message-id")).toMatch(/^<[^<>\s]+@vigil\.example>$/);
      expectFullWording(mail.text, event);
      expectFullWording(shownHtml(mail.html), event);
      expect(mail.html).toContain('<a href="https://vigil.example/monitors/0194f3b2-mon1">');
    },
  );

  it("threads a later degradation and the recovery under the alert that opened the incident", async () => {
    const alert = await sendAndRead(sampleMessage("monitor.failed"));
    const later = new Date("2026-05-01T10:02:00.000Z");
    const degraded = await sendAndRead(sampleMessage("monitor.degraded", { id: "evt-degraded-later", occurredAt: later }));
    const recovered = await sendAndRead(sampleMessage("monitor.recovered"));

    const alertId = alert.headers.get("message-id")!;
    expect(alertId).toBe("<vigil-incident-0194f3b2-inc1-ch1@vigil.example>");
    expect(alert.headers.has("in-reply-to")).toBe(false);
    for (const reply of [degraded, recovered]) {
      expect(reply.headers.get("in-reply-to")).toBe(alertId);
      expect(reply.headers.get("references")).toBe(alertId);
    }
    const ids = new Set([alertId, degraded.headers.get("message-id"), recovered.headers.get("message-id")]);
    expect(ids.size).toBe(3);
  });

  it("gives the incident's root id to a degradation that opened the incident", async () => {
    const opening = await sendAndRead(sampleMessage("monitor.degraded"));

    expect(opening.headers.get("message-id")).toBe("<vigil-incident-0194f3b2-inc1-ch1@vigil.example>");
    expect(opening.headers.has("in-reply-to")).toBe(false);
  });

  it("sends the same Message-ID when a message is sent again, and one of its own for each test", async () => {
    const first = await sendAndRead(sampleMessage("monitor.recovered"));
    const again = await sendAndRead(sampleMessage("monitor.recovered"));
    const testA = await sendAndRead(sampleMessage("test", { id: "test_a" }));
    const testB = await sendAndRead(sampleMessage("test", { id: "test_b" }));

    expect(again.headers.get("message-id")).toBe(first.headers.get("message-id"));
    expect(testA.headers.get("message-id")).not.toBe(testB.headers.get("message-id"));
    expect(testA.headers.has("in-reply-to")).toBe(false);
  });

  it("escapes user-supplied text in the HTML part", async () => {
    const message = sampleMessage("monitor.failed", {
      monitor: { id: "m", name: `<img src=x onerror="alert(1)">&co`, kind: "http", target: "https://example.com/?a=1&b=2" },
      error: `unexpected <script>"x"</script> & more`,
    });

    const mail = await sendAndRead(message);

    expect(mail.html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;co");
    expect(mail.html).toContain("https://example.com/?a=1&amp;b=2");
    expect(mail.html).toContain("unexpected &lt;script&gt;&quot;x&quot;&lt;/script&gt; &amp; more");
    expect(mail.html).not.toContain("<img");
    expect(mail.html).not.toContain("<script");
    expect(mail.text).toContain(`<img src=x onerror="alert(1)">&co`);
  });

  it("sends several mails over one pooled connection", async () => {
    const before = connections;

    await sendAndRead(sampleMessage("monitor.failed"));
    await sendAndRead(sampleMessage("monitor.recovered"));
    await sendAndRead(sampleMessage("test"));

    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it("turns an SMTP 550 rejection into a final DeliveryError carrying the server's answer", async () => {
    rcptAnswer = { code: 550, text: "5.1.1 <ops@example.com>: mailbox unavailable" };

    const error = await email.send(sampleMessage("monitor.failed"), channel, { settings: settings() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as DeliveryError).message).toContain("550 5.1.1 <ops@example.com>: mailbox unavailable");
    expect(mails).toHaveLength(0);
  });

  it("turns an SMTP 451 answer into a retryable DeliveryError", async () => {
    rcptAnswer = { code: 451, text: "4.7.1 greylisted, try again later" };

    const error = await email.send(sampleMessage("monitor.failed"), channel, { settings: settings() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as DeliveryError).message).toContain("451 4.7.1 greylisted");
  });

  it("turns a refused connection into a retryable DeliveryError without the URL's credentials", async () => {
    const closed = new SMTPServer({ logger: false });
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(resolve));
    const unreachable = settingsFor("http://127.0.0.1:9", { SMTP_URL: `smtp://vigil:s3cret@127.0.0.1:${port}` });

    const error = await email.send(sampleMessage("monitor.failed"), channel, { settings: unreachable }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as DeliveryError).message).not.toContain("s3cret");
  });

  it("names SMTP_URL when it is unset, and then sends nothing", async () => {
    const unset = settingsFor("http://127.0.0.1:9");
    expect(email.missingSettings(unset)).toEqual(["SMTP_URL"]);
    expect(email.missingSettings(settings())).toEqual([]);

    const error = await email.send(sampleMessage("monitor.failed"), channel, { settings: unset }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: false });
    expect((error as DeliveryError).message).toContain("SMTP_URL");
    expect(mails).toHaveLength(0);
  });
});
