import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { ACCESS_TYPES, PAGE_LANGUAGES, PAGE_LANGUAGE_NAMES, pageAccessViolations, statusPageFields, statusPageSchema } from "@vigil/domain/status-pages";
import { StatusPageService, type StatusPage } from "@vigil/proto/status-page";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useParams } from "react-router";
import { z } from "zod";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { useAction, useClient } from "../../controls";
import { Components } from "./Components";
import { HookField, useApiErrors } from "./forms";

/** The page's fields as the form holds them: the e-mail domains as text, one or more separated by spaces or commas. */
const pageFormSchema = (hasPassword: boolean) =>
  statusPageSchema
    .extend({
      authEmailDomains: z.preprocess((text) => String(text ?? "").split(/[\s,]+/).filter(Boolean), statusPageSchema.shape.authEmailDomains),
    })
    // The same rule across fields as the API's: a password page needs a password (a stored one counts), an e-mail page a domain.
    .superRefine((page, ctx) => {
      const violations = pageAccessViolations({ accessType: page.accessType, hasPassword: hasPassword || page.password !== "", authEmailDomains: page.authEmailDomains });
      for (const v of violations) ctx.addIssue({ code: "custom", path: [v.field], message: v.rule });
    });

const FIELDS = ["title", "slug", "description", "homepageUrl", "contactUrl", "icon", "customDomain", "accessType", "password", "authEmailDomains", "language", "subscriptionsEnabled"] as const;
const LANGUAGE_OPTIONS = PAGE_LANGUAGES.map((value) => ({ value, label: PAGE_LANGUAGE_NAMES[value] }));
/** The update mask names fields as the proto does. */
const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** One status page: its fields, publishing, its components and groups in order. */
export default function StatusPageEditor() {
  const { id = "" } = useParams();
  const page = useQuery(StatusPageService.method.getStatusPage, { id }, { retry: false });
  const role = useRole();
  const mayEdit = !!role && roleCan(role, "write");
  const statusPage = page.data?.statusPage;
  return (
    <Page title={statusPage?.title ?? "Status page"} wide>
      {page.error && <FormMessage message={page.error.message} />}
      {statusPage && (
        <>
          <p>
            <a href={`/status/${statusPage.slug}`} target="_blank" rel="noreferrer">
              Open the public page
            </a>{" "}
            ({statusPage.published ? "published" : "not published: visitors see nothing yet"}) ·{" "}
            <Link to={`/status-pages/${statusPage.id}/incidents`}>Incidents on this page</Link> ·{" "}
            <Link to={`/status-pages/${statusPage.id}/report`}>Monthly report</Link>
            <Link to={`/status-pages/${statusPage.id}/subscribers`}>Subscribers</Link>
          </p>
          {mayEdit ? <EditPage page={statusPage} /> : <PageDetails page={statusPage} />}
          <Components page={statusPage} mayEdit={mayEdit} />
        </>
      )}
    </Page>
  );
}

function PageDetails({ page }: { page: StatusPage }) {
  const rows: [string, string][] = [
    ["Slug", page.slug ?? ""],
    ["Description", page.description ?? ""],
    ["Homepage", page.homepageUrl ?? ""],
    ["Contact", page.contactUrl ?? ""],
    ["Icon", page.icon ?? ""],
    ["Custom domain", page.customDomain ?? ""],
    ["Access", page.accessType ?? ""],
    ["E-mail domains", page.authEmailDomains.join(", ")],
    ["Language", PAGE_LANGUAGE_NAMES[statusPageFields(page).language] ?? page.language ?? ""],
    ["Subscriptions", page.subscriptionsEnabled === false ? "off" : "on"],
  ];
  return (
    <dl>
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value || "—"}</dd>
        </div>
      ))}
    </dl>
  );
}

function EditPage({ page }: { page: StatusPage }) {
  const client = useClient(StatusPageService);
  const navigate = useNavigate();
  const action = useAction();
  const hasPassword = page.passwordFingerprint !== "";
  const form = useForm({
    resolver: zodResolver(pageFormSchema(hasPassword)),
    defaultValues: {
      ...statusPageFields(page),
      accessType: (page.accessType || "public") as (typeof ACCESS_TYPES)[number],
      password: "",
      authEmailDomains: page.authEmailDomains.join(", ") as unknown as string[],
    },
  });
  const api = useApiErrors(form, FIELDS);
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      // An empty password keeps the stored one; every other field is written as shown.
      const changed = FIELDS.filter((f) => f !== "password" || fields.password !== "");
      await client.updateStatusPage({ id: page.id, statusPage: fields, updateMask: { paths: changed.map(snake) } });
      form.resetField("password");
    }),
  );
  const publish = () => action.run(() => (page.published ? client.unpublishStatusPage({ id: page.id }) : client.publishStatusPage({ id: page.id })));
  const remove = async () => {
    if (await action.run(() => client.deleteStatusPage({ id: page.id }), `Delete the page ${page.title}, its components and groups?`)) await navigate("/status-pages");
  };
  return (
    <>
      {action.message}
      <p className="actions">
        <button type="button" onClick={() => void publish()}>
          {page.published ? "Unpublish" : "Publish"}
        </button>
        <button type="button" className="secondary" onClick={() => void remove()}>
          Delete page
        </button>
      </p>
      <h2>Page</h2>
      <form onSubmit={(e) => void submit(e)} noValidate aria-label="Page">
        <FormMessage message={api.message} />
        <HookField form={form} name="title" label="Title" />
        <HookField form={form} name="slug" label="Slug" hint="Its address: /status/<slug>." />
        <HookField form={form} name="description" label="Description" multiline />
        <HookField form={form} name="homepageUrl" label="Homepage URL" type="url" />
        <HookField form={form} name="contactUrl" label="Contact URL" type="url" />
        <HookField form={form} name="icon" label="Icon URL" type="url" />
        <HookField form={form} name="customDomain" label="Custom domain" hint="status.example.com, pointed at this Vigil (docs/status-pages.md)." />
        <HookField form={form} name="accessType" label="Access" options={ACCESS_TYPES} />
        <HookField
          form={form}
          name="password"
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={hasPassword ? "Set: leave empty to keep it." : "For access by password."}
        />
        <HookField form={form} name="authEmailDomains" label="E-mail domains" hint="For access by e-mail: example.com, example.org." />
        <HookField form={form} name="language" label="Language" options={LANGUAGE_OPTIONS} hint="What the public page is written in; a visitor's browser may ask for another of these." />
        <label className="field check">
          <input type="checkbox" {...form.register("subscriptionsEnabled")} /> Visitors may subscribe (by email or webhook)
        </label>
        <button type="submit" disabled={form.formState.isSubmitting}>
          Save page
        </button>
      </form>
    </>
  );
}
