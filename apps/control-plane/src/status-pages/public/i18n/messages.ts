import i18next, { type TFunction } from "i18next";
import { PAGE_LANGUAGES, type PageLanguage } from "@vigil/domain";
import { de } from "./de";
import { en } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import { ja } from "./ja";
import { pt } from "./pt";
import type { MessageKey, Messages } from "./shape";

const MESSAGES: Record<PageLanguage, Messages> = { en, de, fr, es, pt, ja };

const i18n = i18next.createInstance();
// Resources are in memory, so init finishes at once; React escapes every value, so i18next must not.
void i18n.init({
  resources: Object.fromEntries(PAGE_LANGUAGES.map((lang) => [lang, { translation: MESSAGES[lang] }])),
  supportedLngs: [...PAGE_LANGUAGES],
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  initAsync: false,
});

/** The words of one language: `t("page.title", { page })`. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translatorOf(lang: PageLanguage): Translate {
  const t: TFunction = i18n.getFixedT(lang);
  return (key, values) => t(key, values ?? {});
}
