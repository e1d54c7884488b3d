import { XMLParser, XMLValidator } from "fast-xml-parser";
import { PAGE_LANGUAGES } from "@vigil/domain";
import { Periodicity } from "@vigil/proto";
import { hashPassword } from "../src/auth/password";
import { startTestApi, type TestApi } from "./support/api";
import { seedDay, statusPageFixtures, utcDay } from "./support/status-pages";

/** A message key i18next would answer for a word it lacks: a page in any language shows none. */
const UNTRANSLATED = /\b(?:page|bar|incident|signIn|overall|componentStatus|dayStatus|incidentStatus|automaticTitle|notFound|maintenance|maintenanceStatus)\.[a-zA-Z]+/;
const htmlLang = (html: string) => /<html lang="([^"]+)"/.exec(html)?.[1];

describe("status pages in several languages", () => {
  let api: TestApi;
  let fixtures: ReturnType<typeof statusPageFixtures>;
  let monitorId: string;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    const keys = await api.workspace();
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    fixtures = statusPageFixtures(api.db.prisma, workspaceId);
    monitorId = (await api.client(keys.write.key).createTCPMonitor({ monitor: { name: "API", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
    await seedDay(api.db.prisma, monitorId, utcDay(new Date(), 1), { successful: 1200, failed: 34 });
  });
  afterAll(() => api?.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(new URL(path, api.baseUrl), { headers, redirect: "manual" });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

  /** A page in `language` with the monitor, and an automatic incident that ended after 90 minutes. */
  async function newPage(language?: string, fields: object = {}) {
    const page = await fixtures.page({ title: "Acme", ...(language && { language }), ...fields });
    await fixtures.component(page.id, { monitorId, name: "API" });
    const startedAt = new Date(Date.now() - 3 * 3_600_000);
    const incident = await api.db.prisma.incident.create({
      data: { workspaceId, monitorId, severity: "error", startedAt, resolvedAt: new Date(startedAt.getTime() + 90 * 60_000), regions: [] },
    });
    return { base: `/status/${page.slug}`, incidentId: incident.id };
  }

  it("writes a page in its own language: <html lang>, Content-Language, words, dates and numbers", async () => {
    const { base } = await newPage("de");
    const res = await get(base);
    expect(res.status).toBe(200);
    expect(htmlLang(res.body)).toBe("de");
    expect(res.headers.get("content-language")).toBe("de");
    expect(res.headers.get("vary")).toContain("Accept-Language");
    expect(res.body).toContain("Alle Systeme betriebsbereit");
    expect(res.body).toContain("<h2 id=\"components-title\" class=\"section-title\">Komponenten</h2>");
    // German groups thousands with a dot and writes a percent with a comma and a space.
    expect(res.body).toContain("1.234 Prüfungen · 34 fehlgeschlagen · 97,24\u00a0% Verfügbarkeit");
    expect(res.body).toContain("<dt>Dauer</dt><dd>1 Std. 30 Min.</dd>");
    expect(res.body).toContain("Ausfall: API</a>");
    expect(res.body).not.toMatch(UNTRANSLATED);
  });

  it("takes the visitor's Accept-Language among the page's languages, else the page's own", async () => {
    const { base } = await newPage("de");
    const asked = async (acceptLanguage: string) => htmlLang((await get(base, { "accept-language": acceptLanguage })).body);
    expect(await asked("fr-CA, en;q=0.5")).toBe("fr");
    expect(await asked("pt-BR")).toBe("pt");
    expect(await asked("ja;q=0.4, es;q=0.9")).toBe("es");
    // A language no page is written in, any language, or a tie: the page's own.
    expect(await asked("ko-KR")).toBe("de");
    expect(await asked("*")).toBe("de");
    expect(await asked("en, de")).toBe("en");
    expect(await asked("de, en")).toBe("de");
    // A page that names no language is English.
    expect(htmlLang((await get((await newPage()).base)).body)).toBe("en");
  });

  it("takes ?lang= before anything else, and its links keep it", async () => {
    const { base, incidentId } = await newPage("de");
    const res = await get(`${base}?lang=ja`, { "accept-language": "fr" });
    expect(htmlLang(res.body)).toBe("ja");
    expect(res.body).toContain("すべてのシステムが正常に稼働しています");
    expect(res.body).toContain(`href="${base}/history?lang=ja"`);
    expect(res.body).toContain(`href="${base}/incidents/${incidentId}?lang=ja"`);
    // Each language is offered, as a link to the same view.
    for (const lang of PAGE_LANGUAGES) expect(res.body).toContain(`href="${base}?lang=${lang}" lang="${lang}" hrefLang="${lang}"`);
    expect(res.body).toMatch(/<a href="[^"]*\?lang=ja" lang="ja" hrefLang="ja" aria-current="true">日本語<\/a>/);
    // Unknown codes are ignored; the case of a known one is not.
    expect(htmlLang((await get(`${base}?lang=xx`, { "accept-language": "fr" })).body)).toBe("fr");
    expect(htmlLang((await get(`${base}?lang=PT`)).body)).toBe("pt");
  });

  it("serves each language from the cache as its own representation, with its own ETag", async () => {
    const { base } = await newPage();
    const first = await get(base, { "accept-language": "es" });
    const second = await get(base, { "accept-language": "en" });
    const third = await get(base, { "accept-language": "es" });
    expect([htmlLang(first.body), htmlLang(second.body), htmlLang(third.body)]).toEqual(["es", "en", "es"]);
    expect(first.headers.get("etag")).not.toBe(second.headers.get("etag"));
    expect(third.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it.each(PAGE_LANGUAGES)("has every word of the page, its history and an incident's page in %s", async (lang) => {
    const { base, incidentId } = await newPage(lang);
    for (const path of [base, `${base}/history`, `${base}/incidents/${incidentId}`]) {
      const res = await get(path);
      expect([path, res.status, htmlLang(res.body), res.headers.get("content-language")]).toEqual([path, 200, lang, lang]);
      expect(res.body).not.toMatch(UNTRANSLATED);
    }
  });

  it("writes the feed in the visitor's language; summary.json stays in Statuspage's English", async () => {
    const { base } = await newPage("fr");
    const feed = await get(`${base}/feed.atom`);
    expect(XMLValidator.validate(feed.body)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" }).parse(feed.body).feed;
    expect(parsed.title["#text"] ?? parsed.title).toBe("Incidents de Acme");
    expect(parsed.entry[0].title["#text"]).toBe("Panne : API (résolu)");
    expect(feed.headers.get("content-language")).toBe("fr");

    const summary = await get(`${base}/summary.json`, { "accept-language": "ja" });
    expect(summary.headers.get("content-language")).toBeNull();
    expect(summary.headers.get("vary")).not.toContain("Accept-Language");
    expect(JSON.parse(summary.body).status.description).toBe("All Systems Operational");
  });

  it("writes the subscription form and the answers of the subscription flow in the visitor's language", async () => {
    const { base } = await newPage("de");
    const page = await get(base);
    expect(page.body).toContain('<h2 id="subscribe-title" class="section-title">Benachrichtigungen erhalten</h2>');
    expect(page.body).toContain("<button type=\"submit\">Abonnieren</button>");
    // This deployment sends no mail: the answer says so, in the language asked for.
    const answer = await fetch(new URL(`${base}/subscribe`, api.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": "ja" },
      body: "email=reader%40example.com",
    });
    expect(answer.status).toBe(503);
    const body = await answer.text();
    expect(htmlLang(body)).toBe("ja");
    expect(body).toContain("メールは利用できません");
    expect(body).toContain("ステータスページに戻る");
    const unknown = await get(`${base}/unsubscribe?token=nothing`, { "accept-language": "fr" });
    expect([unknown.status, htmlLang(unknown.body)]).toEqual([404, "fr"]);
    expect(unknown.body).toContain("Ce lien ne correspond à aucun abonnement");
  });

  it("writes the sign-in form of a protected page and the not-found page in the visitor's language", async () => {
    const { base } = await newPage("es", { accessType: "password", passwordHash: await hashPassword("right") });
    const form = await get(base);
    expect(form.status).toBe(401);
    expect(htmlLang(form.body)).toBe("es");
    expect(form.body).toContain("Esta página de estado está protegida con una contraseña.");
    expect(form.body).toContain('<label for="password">Contraseña</label>');
    const wrong = await fetch(new URL(`${base}/sign-in`, api.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": "pt-BR" },
      body: "password=nope",
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Senha incorreta.");

    const missing = await get("/status/no-such-page-anywhere", { "accept-language": "ja" });
    expect(missing.status).toBe(404);
    expect(htmlLang(missing.body)).toBe("ja");
    expect(missing.body).toContain("ページが見つかりません");
  });
});
