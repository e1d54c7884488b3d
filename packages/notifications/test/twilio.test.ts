import { DeliveryError } from "../src/errors";
import { sms } from "../src/providers/sms";
import { whatsapp } from "../src/providers/whatsapp";
import { summary, title } from "../src/text";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

const SID = "AC0123456789abcdef0123456789abcdef";
const MESSAGES_PATH = `/2010-04-01/Accounts/${SID}/Messages.json`;
const BASIC = `Basic ${Buffer.from(`${SID}:twilio-auth-token`).toString("base64")}`;
const LINK = "https://vigil.example/monitors/0194f3b2-mon1";
const QUEUED = { status: 201, body: { sid: "SM0123456789abcdef0123456789abcdef", status: "queued", num_segments: "1", error_code: null } };
const EVENTS = ["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const;

let server: ProviderServer;
const smsChannel: Channel<"sms"> = { id: "ch1", name: "pager phone", type: "sms", config: { phoneNumber: "+15558675310" } };
const whatsappChannel: Channel<"whatsapp"> = { id: "ch2", name: "ops phone", type: "whatsapp", config: { phoneNumber: "+15558675310" } };

beforeEach(async () => {
  server = await startProviderServer(() => QUEUED);
});
afterEach(() => server.close());

/** The form Twilio received, after checking the request line, the account's Basic credentials and the content type. */
async function sentForm(): Promise<URLSearchParams> {
  const request = (await server.waitFor(1))[0]!;
  expect(request.method).toBe("POST");
  expect(request.url).toBe(MESSAGES_PATH);
  expect(request.headers.authorization).toBe(BASIC);
  expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  return request.form!;
}

describe("sms", () => {
  it.each(EVENTS)("sends a short %s text (summary and link) from TWILIO_SMS_FROM to the channel's number", async (event) => {
    const message = sampleMessage(event);

    expect(await sms.send(message, smsChannel, { settings: settingsFor(server.url) })).toEqual({ statusCode: 201 });

    const form = await sentForm();
    expect([...form.keys()].sort()).toEqual(["Body", "From", "To"]);
    expect(form.get("To")).toBe("+15558675310");
    expect(form.get("From")).toBe("+15557122661");
    expect(form.get("Body")).toBe(`[Vigil] ${summary(message)}\n${LINK}`);
  });

  it("keeps the Body within Twilio's 1600 characters and never cuts the link", async () => {
    await sms.send(sampleMessage("monitor.failed", { error: "x".repeat(3000) }), smsChannel, { settings: settingsFor(server.url) });

    const body = (await sentForm()).get("Body")!;
    expect(body.length).toBeLessThanOrEqual(1600);
    expect(body.endsWith(`\n${LINK}`)).toBe(true);
  });

  it("names exactly the unset Twilio variables, and then sends nothing", async () => {
    const settings = settingsFor(server.url, { TWILIO_AUTH_TOKEN: "", TWILIO_SMS_FROM: "" });
    expect(sms.missingSettings(settings)).toEqual(["TWILIO_AUTH_TOKEN", "TWILIO_SMS_FROM"]);
    expect(sms.missingSettings(settingsFor(server.url, { TWILIO_ACCOUNT_SID: "" }))).toEqual(["TWILIO_ACCOUNT_SID"]);
    expect(sms.missingSettings(settingsFor(server.url, { TWILIO_WHATSAPP_FROM: "" }))).toEqual([]);

    const error = await sms.send(sampleMessage("monitor.failed"), smsChannel, { settings }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: false });
    expect((error as DeliveryError).message).toContain("TWILIO_AUTH_TOKEN, TWILIO_SMS_FROM");
    expect(server.received).toHaveLength(0);
  });

  it("turns Twilio's 400 (code 21211) into a final DeliveryError carrying the status and Twilio's answer", async () => {
    server.answerWith(() => ({
      status: 400,
      body: { code: 21211, message: "The 'To' number +15558675310 is not a valid phone number.", more_info: "https://www.twilio.com/docs/errors/21211", status: 400 },
    }));

    const error = await sms.send(sampleMessage("monitor.failed"), smsChannel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("21211");
    expect((error as DeliveryError).message).toContain("is not a valid phone number");
    expect((error as DeliveryError).message).not.toContain("twilio-auth-token");
  });

  it("turns a 429 (code 20429) into a retryable DeliveryError with the wait Twilio asked for", async () => {
    server.answerWith(() => ({ status: 429, body: { code: 20429, message: "Too Many Requests", status: 429 }, headers: { "retry-after": "5" } }));

    const error = await sms.send(sampleMessage("monitor.failed"), smsChannel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 5000 });
  });
});

describe("whatsapp", () => {
  it.each(EVENTS)("sends a %s message as free text between whatsapp: addresses when no template is set", async (event) => {
    const message = sampleMessage(event);

    expect(await whatsapp.send(message, whatsappChannel, { settings: settingsFor(server.url) })).toEqual({ statusCode: 201 });

    const form = await sentForm();
    expect([...form.keys()].sort()).toEqual(["Body", "From", "To"]);
    expect(form.get("To")).toBe("whatsapp:+15558675310");
    expect(form.get("From")).toBe("whatsapp:+14155238886");
    expect(form.get("Body")!.startsWith(`${title(message)}\n`)).toBe(true);
    expectFullWording(form.get("Body")!, event);
  });

  it("sends the template TWILIO_WHATSAPP_CONTENT_SID with title, summary and link as variables 1, 2 and 3 instead of a Body", async () => {
    const settings = settingsFor(server.url, {
      TWILIO_WHATSAPP_CONTENT_SID: "HX0123456789abcdef0123456789abcdef",
      TWILIO_WHATSAPP_FROM: "whatsapp:+14155238886",
    });
    const message = sampleMessage("monitor.failed", { error: "line one\nline two\t      spaced" });

    await whatsapp.send(message, whatsappChannel, { settings });

    const form = await sentForm();
    expect([...form.keys()].sort()).toEqual(["ContentSid", "ContentVariables", "From", "To"]);
    expect(form.get("From")).toBe("whatsapp:+14155238886");
    expect(form.get("ContentSid")).toBe("HX0123456789abcdef0123456789abcdef");
    const variables = JSON.parse(form.get("ContentVariables")!) as Record<string, string>;
    expect(Object.keys(variables)).toEqual(["1", "2", "3"]);
    expect(variables["1"]).toBe("DOWN: Homepage");
    expect(variables["2"]).toContain("Homepage (https://api.example.com/health) is down in hostA-ams, hostB-fra: line one line two spaced");
    expect(variables["3"]).toBe(LINK);
    // WhatsApp refuses a variable with a newline, a tab or more than four spaces in a row.
    for (const value of Object.values(variables)) expect(value).not.toMatch(/[\n\t]| {5}/);
  });

  it("names exactly the unset Twilio variables, and then sends nothing", async () => {
    const settings = settingsFor(server.url, { TWILIO_ACCOUNT_SID: "", TWILIO_WHATSAPP_FROM: "" });
    expect(whatsapp.missingSettings(settings)).toEqual(["TWILIO_ACCOUNT_SID", "TWILIO_WHATSAPP_FROM"]);
    expect(whatsapp.missingSettings(settingsFor(server.url, { TWILIO_SMS_FROM: "" }))).toEqual([]);

    const error = await whatsapp.send(sampleMessage("monitor.failed"), whatsappChannel, { settings }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: false });
    expect((error as DeliveryError).message).toContain("TWILIO_ACCOUNT_SID, TWILIO_WHATSAPP_FROM");
    expect(server.received).toHaveLength(0);
  });

  it("turns Twilio's 400 into a final DeliveryError carrying the status and Twilio's answer", async () => {
    server.answerWith(() => ({
      status: 400,
      body: { code: 21211, message: "Invalid 'To' Phone Number", more_info: "https://www.twilio.com/docs/errors/21211", status: 400 },
    }));

    const error = await whatsapp.send(sampleMessage("monitor.failed"), whatsappChannel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("Invalid 'To' Phone Number");
  });
});
