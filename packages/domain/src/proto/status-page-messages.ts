import { ScalarType, create, type DescMessage } from "@bufbuild/protobuf";
import { timestampFromDate, type FieldMask } from "@bufbuild/protobuf/wkt";
import {
  StatusPageComponentGroupSchema,
  StatusPageComponentSchema,
  StatusPageSchema,
  type StatusPage,
  type StatusPageComponent,
  type StatusPageComponentGroup,
} from "@vigil/proto/status-page";
import { DEFAULT_ACCESS_TYPE, DEFAULT_PAGE_LANGUAGE, DEFAULT_SUBSCRIPTIONS_ENABLED, type ComponentFields, type ComponentType, type PageFields } from "../status-page-config";
import { fieldsOfMask } from "./update-mask";

type Fields<K extends string> = Partial<Record<K, unknown>>;

/**
 * The fields an update changes, with the values it gives them. With an update
 * mask, exactly the fields it names (proto or JSON spelling); a named field
 * that is not sent is cleared (its value in `cleared`, else its zero value).
 * Without one, the fields the message carries: optional fields that are
 * present, non-empty lists and non-empty plain strings. Any other field of the
 * message (id, read-only fields) is ignored in the message and refused in the mask.
 */
function changedFields<K extends string>(schema: DescMessage, updatable: readonly K[], message: object, mask: FieldMask | undefined, cleared: Fields<K> = {}): Fields<K> {
  const fields = schema.fields.filter((field) => (updatable as readonly string[]).includes(field.localName));
  const values = message as Record<string, unknown>;
  const zero = (field: (typeof fields)[number]) => {
    if (field.fieldKind === "list") return [];
    return field.fieldKind === "scalar" && field.scalar === ScalarType.INT32 ? 0 : "";
  };
  if (mask && mask.paths.length > 0) {
    return Object.fromEntries(
      fieldsOfMask(fields, mask, `a field that can be updated (${updatable.join(", ")})`).map((field) => {
        const key = field.localName as K;
        // A list is never absent: sent empty, it is cleared as it reads.
        const value = values[key];
        return [key, value === undefined ? (key in cleared ? cleared[key] : zero(field)) : value];
      }),
    ) as Fields<K>;
  }
  return Object.fromEntries(
    fields
      .filter((field) => {
        const value = values[field.localName];
        if (field.fieldKind === "list") return (value as unknown[]).length > 0;
        // A plain (not optional) string cannot tell "not sent" from "": empty is not sent.
        return value !== undefined && (field.proto.proto3Optional || value !== "");
      })
      .map((field) => [field.localName, values[field.localName]]),
  ) as Fields<K>;
}

// ---- pages ----

const PAGE_FIELDS = [
  "title", "slug", "description", "homepageUrl", "contactUrl", "icon", "customDomain", "accessType", "password", "authEmailDomains", "language", "subscriptionsEnabled",
] as const satisfies readonly (keyof PageFields)[];

/** A page's settable fields as a create sends them; absent ones are undefined (and take their defaults). */
export function statusPageInputFromMessage(message: StatusPage): Fields<keyof PageFields> {
  return Object.fromEntries(PAGE_FIELDS.map((key) => [key, key === "authEmailDomains" ? [...message.authEmailDomains] : message[key]]));
}

/**
 * The fields an update of a page changes; a cleared access type or language
 * is the default one. externalId is among them unvalidated (parseExternalId): it is
 * kept beside the page's fields.
 */
export function statusPageChanges(message: StatusPage, mask: FieldMask | undefined): Fields<keyof PageFields | "externalId"> {
  return changedFields(StatusPageSchema, [...PAGE_FIELDS, "externalId"], message, mask, { accessType: DEFAULT_ACCESS_TYPE, language: DEFAULT_PAGE_LANGUAGE, subscriptionsEnabled: DEFAULT_SUBSCRIPTIONS_ENABLED });
}

/** A stored page as answers show it: never its password, only the password's fingerprint. */
export type StatusPageView = Omit<PageFields, "password"> & {
  id: string;
  externalId: string | null;
  /** Null when the page has no password, or its password was set before fingerprints were kept. */
  passwordFingerprint: string | null;
  published: boolean;
  theme: string;
  createdAt: Date;
  updatedAt: Date;
};

export function statusPageToMessage(view: StatusPageView): StatusPage {
  return create(StatusPageSchema, {
    id: view.id,
    title: view.title,
    slug: view.slug,
    description: view.description,
    homepageUrl: view.homepageUrl,
    contactUrl: view.contactUrl,
    icon: view.icon,
    customDomain: view.customDomain,
    accessType: view.accessType,
    authEmailDomains: view.authEmailDomains,
    language: view.language,
    subscriptionsEnabled: view.subscriptionsEnabled,
    externalId: view.externalId ?? "",
    passwordFingerprint: view.passwordFingerprint ?? "",
    published: view.published,
    theme: view.theme,
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
  });
}

// ---- components ----

const COMPONENT_FIELDS = [
  "type", "monitorId", "name", "description", "order", "groupId", "groupOrder",
] as const satisfies readonly (keyof ComponentFields)[];

/** A component's settable fields as a create sends them; absent ones are undefined (and take their defaults). */
export function componentInputFromMessage(message: StatusPageComponent): Fields<keyof ComponentFields> {
  // type is a plain string: empty is not sent.
  return Object.fromEntries(COMPONENT_FIELDS.map((key) => [key, key === "type" ? message.type || undefined : message[key]]));
}

/**
 * The fields an update of a component changes. page_id and type are among
 * them so that the service can refuse a change (repeating the stored value is
 * fine); externalId unvalidated (parseExternalId).
 */
export function componentChanges(message: StatusPageComponent, mask: FieldMask | undefined): Fields<keyof ComponentFields | "pageId" | "externalId"> {
  return changedFields(StatusPageComponentSchema, ["pageId", "externalId", ...COMPONENT_FIELDS], message, mask);
}

export interface ComponentView {
  id: string;
  pageId: string;
  type: ComponentType;
  monitorId: string;
  name: string;
  description: string;
  order: number;
  groupId: string;
  groupOrder: number;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function componentToMessage(view: ComponentView): StatusPageComponent {
  return create(StatusPageComponentSchema, {
    ...view,
    externalId: view.externalId ?? "",
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
  });
}

// ---- groups ----

/** The fields an update of a group changes; page_id only to refuse a change, externalId unvalidated (parseExternalId). */
export function groupChanges(message: StatusPageComponentGroup, mask: FieldMask | undefined): Fields<"pageId" | "name" | "externalId"> {
  return changedFields(StatusPageComponentGroupSchema, ["pageId", "name", "externalId"], message, mask);
}

export interface GroupView {
  id: string;
  pageId: string;
  name: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function groupToMessage(view: GroupView): StatusPageComponentGroup {
  return create(StatusPageComponentGroupSchema, {
    ...view,
    externalId: view.externalId ?? "",
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
  });
}

/** changedFields for the messages of status_page.v1 kept in files of their own (incidents). */
export const statusPageMessageChanges = changedFields;
