import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@connectrpc/connect-query";
import { roleCan } from "@vigil/domain/accounts";
import { statusPageSchema } from "@vigil/domain/status-pages";
import { StatusPageService } from "@vigil/proto/status-page";
import { useForm } from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { Table, useClient } from "../../controls";
import { HookField, useApiErrors } from "./forms";

/** The workspace's status pages; editors and above create one by title and slug, then edit it on its own page. */
export default function StatusPages() {
  const pages = useQuery(StatusPageService.method.listStatusPages, { limit: 100 }, { retry: false });
  const role = useRole();
  return (
    <Page title="Status pages" wide>
      {pages.error && <FormMessage message={pages.error.message} />}
      {pages.data?.statusPages.length === 0 && <p>No status page yet.</p>}
      {!!pages.data?.statusPages.length && (
        <Table caption="Status pages" head={["Title", "Address", "Access", "Published"]}>
          {pages.data.statusPages.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <Link to={`/status-pages/${p.id}`}>{p.title}</Link>
              </th>
              <td>
                <code>/status/{p.slug}</code>
                {p.customDomain && <> and {p.customDomain}</>}
              </td>
              <td>{p.accessType}</td>
              <td>{p.published ? "yes" : "no"}</td>
            </tr>
          ))}
        </Table>
      )}
      {role && roleCan(role, "write") && <CreatePage />}
    </Page>
  );
}

const newPageSchema = statusPageSchema.pick({ title: true, slug: true });

function CreatePage() {
  const client = useClient(StatusPageService);
  const navigate = useNavigate();
  const form = useForm({ resolver: zodResolver(newPageSchema), defaultValues: { title: "", slug: "" } });
  const api = useApiErrors(form, ["title", "slug"]);
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      const { statusPage } = await client.createStatusPage({ statusPage: fields });
      await navigate(`/status-pages/${statusPage!.id}`);
    }),
  );
  return (
    <>
      <h2>Create a status page</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <FormMessage message={api.message} />
        <HookField form={form} name="title" label="Title" />
        <HookField form={form} name="slug" label="Slug" hint="Its address: /status/<slug>. Lowercase letters, digits and hyphens." />
        <button type="submit" disabled={form.formState.isSubmitting}>
          Create page
        </button>
      </form>
    </>
  );
}
