import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import type { PrismaClient } from "@vigil/db";
import { hashPassword } from "../../src/auth/password";

/** A mail as the local SMTP server received it. */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

/**
 * An SMTP server on loopback that keeps every mail it is sent; `refuses` recipients are answered 550 (no
 * such user), and `defers` ones 451 (try again later) while it says so.
 */
export async function startMailbox(options: { refuses?: (address: string) => boolean; defers?: (address: string) => boolean } = {}) {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onRcptTo(address, _session, callback) {
      if (options.refuses?.(address.address)) return callback(Object.assign(new Error("5.1.1 no such user"), { responseCode: 550 }));
      if (options.defers?.(address.address)) return callback(Object.assign(new Error("4.7.1 greylisted, try again later"), { responseCode: 451 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    /** The mails sent to `address` (compared without case). */
    mailsTo: (address: string) => mails.filter((mail) => mail.to.some((to) => to.toLowerCase() === address.toLowerCase())),
    /** The one mail sent to `address`; throws until there is one (for eventually). */
    mailTo(address: string): ReceivedMail {
      const found = this.mailsTo(address);
      if (found.length !== 1) throw new Error(`${found.length} mails to ${address}`);
      return found[0]!;
    },
    close: () => new Promise<void>((resolve) => server.close(resolve)),
  };
}

/** The first absolute URL of a mail (its text part comes first), quoted-printable undone (soft breaks, `=3D`). */
export function firstLinkOf(mail: ReceivedMail): string {
  const body = mail.raw
    .slice(mail.raw.indexOf("\r\n\r\n"))
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const link = /https?:\/\/[^\s"<>]+/.exec(body)?.[0];
  if (!link) throw new Error(`no link in mail:\n${mail.raw}`);
  return link;
}

let pages = 0;

/** A published page stored directly, with its password hashed as the API stores it. */
export async function createPage(
  prisma: PrismaClient,
  workspaceSlug: string,
  fields: { accessType: string; password?: string; authEmailDomains?: string[]; customDomain?: string },
) {
  const workspace = await prisma.workspace.findUniqueOrThrow({ where: { slug: workspaceSlug } });
  pages += 1;
  return prisma.statusPage.create({
    data: {
      workspaceId: workspace.id,
      title: `Acme Status ${pages}`,
      slug: `acme-${pages}`,
      accessType: fields.accessType,
      passwordHash: fields.password ? await hashPassword(fields.password) : null,
      authEmailDomains: fields.authEmailDomains ?? [],
      customDomain: fields.customDomain ?? null,
    },
  });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request with exactly the headers given (Host and Origin included), no redirects followed. */
export function request(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; form?: Record<string, string> | URLSearchParams } = {},
): Promise<RawResponse> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  const headers = { ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, baseUrl), { method: options.method ?? (body !== undefined ? "POST" : "GET"), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The `name=value` pair of a response's session cookie, to send back as a Cookie header. */
export function sessionCookieOf(res: RawResponse): string {
  const setCookie = res.headers["set-cookie"]?.[0];
  if (!setCookie) throw new Error(`no Set-Cookie in a ${res.status} answer`);
  return setCookie.split(";")[0]!;
}
