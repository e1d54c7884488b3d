import type { VigilClient } from "@vigil/client";
import {
  ACCESS_TYPES,
  PAGE_LANGUAGES,
  DEFAULT_ACCESS_TYPE,
  LIMITS,
  checkPageAccess,
  parseStatusPage,
  parseStatusPageChanges,
  secretFingerprint,
  statusPageInputFromMessage,
  statusPageSchema,
  type AccessType,
  type PageFields,
} from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, fromOutput, optional, required, toInput, withDefault, type BlockSpec } from "../schema/index.js";
import type { TfObject, TfValue } from "../values/index.js";
import type { ResourceDefinition } from "./definition.js";
import { answered, deleteIfPresent, timestampAttributes, timestampText, unlessMissing } from "./common.js";

export type PageMessage = NonNullable<Awaited<ReturnType<VigilClient["statusPages"]["getStatusPage"]>>["statusPage"]>;

const isAccessType = (value: unknown): value is AccessType => (ACCESS_TYPES as readonly unknown[]).includes(value);

const PAGE_FIELDS = Object.keys(statusPageSchema.shape) as (keyof PageFields)[];

/** The domain's default of a page field, as the plan shows it when the configuration leaves the field out. */
const defaultOf = (field: keyof PageFields) => statusPageSchema.shape[field].parse(undefined) as TfValue;

export const statusPageSchemaSpec: BlockSpec = {
  attributes: {
    id: computed("string", "The page's id."),
    title: required("string", `Title, 1 to ${LIMITS.nameMaxChars} characters.`),
    slug: required("string", "Lowercase letters, digits and single hyphens; the page is at /status/<slug>."),
    description: withDefault("string", `Description, at most ${LIMITS.descriptionMaxChars} characters.`, defaultOf("description")),
    homepage_url: withDefault("string", "Link to a homepage (http or https URL).", defaultOf("homepageUrl")),
    contact_url: withDefault("string", "Link to a contact page (http or https URL).", defaultOf("contactUrl")),
    icon: withDefault("string", "URL of the icon (http or https).", defaultOf("icon")),
    custom_domain: withDefault("string", "Host name the page is also served at; its DNS must point to the service first.", defaultOf("customDomain")),
    access_type: withDefault("string", `Who may read the page: ${ACCESS_TYPES.join(", ")}.`, defaultOf("accessType")),
    password: optional("string", "The page's password, required when access_type is password. Write-only in the API: kept from the configuration.", {
      sensitive: true,
    }),
    auth_email_domains: withDefault(["list", "string"], "Domains whose addresses may sign in, required when access_type is email-domain.", defaultOf("authEmailDomains")),
    language: withDefault("string", `The public page's language unless a visitor asks for another: ${PAGE_LANGUAGES.join(", ")}.`, defaultOf("language")),
    subscriptions_enabled: withDefault("bool", "Whether visitors may subscribe to the page by email or webhook (on unless turned off).", defaultOf("subscriptionsEnabled")),
    published: computed("bool", "Whether the page is published."),
    theme: computed("string", "The page's theme."),
    ...timestampAttributes("page"),
  },
};

/** A page as the API answers it, by the domain's (camelCase) field names, without its password, which the API never returns. */
export function pageOutput(page: PageMessage): Record<string, unknown> {
  const { password: _writeOnly, ...fields } = parseStatusPage(statusPageInputFromMessage(page));
  return {
    ...fields,
    id: page.id,
    published: page.published,
    theme: page.theme,
    createdAt: timestampText(page.createdAt),
    updatedAt: timestampText(page.updatedAt),
  };
}

/** The domain's page fields of a value (not the read-only attributes). */
const pageInput = (value: TfObject): Partial<Record<keyof PageFields, unknown>> => {
  const input = toInput(statusPageSchemaSpec, value);
  return Object.fromEntries(PAGE_FIELDS.filter((field) => field in input).map((field) => [field, input[field]]));
};

/**
 * The password the state holds: the one Terraform knows when the API's
 * fingerprint says it is the stored one. Otherwise it was changed outside
 * Terraform (or the page was imported): null when the page has none now, and
 * when it has one, a marker no configuration holds, so that the plan shows
 * the password being set back to the configured one.
 */
function passwordInState(page: PageMessage, known: TfValue | undefined): TfValue {
  const knownText = typeof known === "string" ? known : "";
  const expected = knownText === "" ? "" : secretFingerprint(page.id, knownText);
  if (page.passwordFingerprint === expected) return known ?? null;
  return page.passwordFingerprint === "" ? null : `(set outside Terraform; fingerprint ${page.passwordFingerprint})`;
}

/** Attributes the API stores normalized (host names in lowercase): the configuration's spelling stays when it means the same. */
const NORMALIZED: [attribute: string, field: keyof PageFields][] = [
  ["custom_domain", "customDomain"],
  ["auth_email_domains", "authEmailDomains"],
];

function keepSpelling(state: TfObject, known: TfObject) {
  for (const [attribute, field] of NORMALIZED) {
    const spelled = pageInput(known)[field];
    if (spelled === undefined) continue;
    try {
      const normalized = (parseStatusPageChanges({ [field]: spelled } as Pick<Record<keyof PageFields, unknown>, typeof field>) as Record<string, unknown>)[field];
      if (JSON.stringify(normalized) === JSON.stringify(state[attribute])) state[attribute] = known[attribute] ?? null;
    } catch {
      // Not a valid spelling: the state shows the stored value.
    }
  }
}

/** The page's state: the API's answer, with what Terraform knows (the planned or prior state) for what the API does not return. */
function stateOf(page: PageMessage | undefined, known: TfObject | null): TfObject {
  const answer = answered(page, "status page");
  const state = fromOutput(statusPageSchemaSpec, pageOutput(answer));
  state.password = passwordInState(answer, known?.password);
  if (known) keepSpelling(state, known);
  return state;
}

export const statusPage: ResourceDefinition = {
  typeName: "service_status_page",
  description: "A status page showing the state of the workspace's services to its users.",
  schema: statusPageSchemaSpec,
  validate: (config) => {
    // Each known field by its own rule (unknown ones are left out), and the access rules with the defaults for what is left out.
    const input = pageInput(config);
    const accessType = input.accessType ?? DEFAULT_ACCESS_TYPE;
    return [
      ...domainViolations(() => parseStatusPageChanges(input as Record<keyof PageFields, unknown>)),
      ...(isAccessType(accessType)
        ? domainViolations(() =>
            checkPageAccess({ accessType, hasPassword: (input.password ?? "") !== "", authEmailDomains: (input.authEmailDomains as string[] | undefined) ?? [] }),
          )
        : []),
    ];
  },
  async create(ctx, planned) {
    const { statusPage: page } = await ctx.client.statusPages.createStatusPage({ statusPage: parseStatusPage(pageInput(planned)) }, { signal: ctx.signal });
    return stateOf(page, planned);
  },
  async read(ctx, state) {
    const answer = await unlessMissing(ctx.client.statusPages.getStatusPage({ id: String(state.id) }, { signal: ctx.signal }));
    return answer ? stateOf(answer.statusPage, state) : null;
  },
  async update(ctx, planned, prior) {
    // The password is sent only when it changes: the API checks a repeated one against its hash, which takes time.
    const paths = PAGE_FIELDS.filter((field) => field !== "password" || (planned.password ?? null) !== (prior.password ?? null));
    const request = { id: String(prior.id), statusPage: parseStatusPage(pageInput(planned)), updateMask: { paths } };
    const { statusPage: page } = await ctx.client.statusPages.updateStatusPage(request, { signal: ctx.signal });
    return stateOf(page, planned);
  },
  async delete(ctx, state) {
    await deleteIfPresent(ctx.client.statusPages.deleteStatusPage({ id: String(state.id) }, { signal: ctx.signal }));
  },
  importState: (id) => ({ id }),
};
