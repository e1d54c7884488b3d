import type { StatusPage } from "@vigil/proto/status-page";
import { DEFAULT_PAGE_LANGUAGE, DEFAULT_SUBSCRIPTIONS_ENABLED, type PageLanguage } from "./status-page-config";

/** A page's editable fields as plain values, unset ones empty: what the CLI compares and the console's editor starts from. */
export function statusPageFields(page: StatusPage) {
  return {
    title: page.title ?? "",
    slug: page.slug ?? "",
    description: page.description ?? "",
    homepageUrl: page.homepageUrl ?? "",
    contactUrl: page.contactUrl ?? "",
    icon: page.icon ?? "",
    customDomain: page.customDomain ?? "",
    accessType: page.accessType || "public",
    authEmailDomains: [...page.authEmailDomains],
    // Written from a validated language.
    language: (page.language || DEFAULT_PAGE_LANGUAGE) as PageLanguage,
    subscriptionsEnabled: page.subscriptionsEnabled ?? DEFAULT_SUBSCRIPTIONS_ENABLED,
  };
}
