import { useQuery } from "@connectrpc/connect-query";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { roleCan } from "@vigil/domain/accounts";
import { subscribersCsv } from "@vigil/domain/status-pages";
import { StatusPageService, type StatusPageSubscriber } from "@vigil/proto/status-page";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { useRole } from "../../SignedIn";
import { FormMessage, Page } from "../../ui";
import { Table, useAction, useClient, when } from "../../controls";

/** Subscribers shown a screen at a time; the CSV holds all of them. */
const PAGE_SIZE = 50;

const iso = (at: Timestamp | undefined) => (at ? timestampDate(at).toISOString() : "");

/** A page's subscribers: who is told of its incidents. Editors and above remove them; anyone with read access exports them as CSV. */
export default function Subscribers() {
  const { id = "" } = useParams();
  const [offset, setOffset] = useState(0);
  const page = useQuery(StatusPageService.method.getStatusPage, { id }, { retry: false });
  const list = useQuery(StatusPageService.method.listStatusPageSubscribers, { pageId: id, limit: PAGE_SIZE, offset }, { retry: false });
  const client = useClient(StatusPageService);
  const action = useAction();
  const role = useRole();
  const mayEdit = !!role && roleCan(role, "write");
  const [exportError, setExportError] = useState<string | null>(null);
  const statusPage = page.data?.statusPage;
  const error = page.error ?? list.error;

  const remove = (s: StatusPageSubscriber) =>
    void action.run(() => client.deleteStatusPageSubscriber({ id: s.id }), `Remove ${s.email || s.webhookUrl}? They are told nothing.`);

  /** Every subscriber, a list call of 100 at a time, as a CSV download. */
  const exportCsv = async () => {
    try {
      const all: StatusPageSubscriber[] = [];
      for (;;) {
        const { subscribers, totalSize } = await client.listStatusPageSubscribers({ pageId: id, limit: 100, offset: all.length });
        all.push(...subscribers);
        if (subscribers.length === 0 || all.length >= totalSize) break;
      }
      const csv = subscribersCsv(all.map((s) => ({ ...s, confirmedAt: iso(s.confirmedAt), createdAt: iso(s.createdAt) })));
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
      link.download = `${statusPage?.slug ?? "status-page"}-subscribers.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
      setExportError(null);
    } catch (e) {
      setExportError((e as Error).message);
    }
  };

  const total = list.data?.totalSize ?? 0;
  return (
    <Page title={statusPage ? `Subscribers of ${statusPage.title}` : "Subscribers"} wide>
      {error && <FormMessage message={error.message} />}
      {statusPage && (
        <p>
          <Link to={`/status-pages/${statusPage.id}`}>Back to {statusPage.title}</Link> ·{" "}
          {statusPage.subscriptionsEnabled === false ? "Subscriptions are off: the page shows no form, and nobody is told." : "Visitors subscribe on the public page."}
        </p>
      )}
      {action.message}
      <FormMessage message={exportError} />
      {list.data && (
        <>
          <p className="actions">
            <button type="button" onClick={() => void exportCsv()} disabled={total === 0}>
              Export CSV
            </button>
          </p>
          {total === 0 ? (
            <p>No subscriber yet.</p>
          ) : (
            <>
              <Table caption="Subscribers" head={["Email or webhook", "Kind", "Confirmed", "Components", "Since", ...(mayEdit ? [""] : [])]}>
                {list.data.subscribers.map((s) => (
                  <tr key={s.id}>
                    <td>{s.email || s.webhookUrl}</td>
                    <td>{s.kind}</td>
                    <td>{s.confirmed ? "Yes" : "Waiting"}</td>
                    <td>{s.componentIds.length === 0 ? "All" : s.componentIds.length}</td>
                    <td>{when(s.createdAt)}</td>
                    {mayEdit && (
                      <td>
                        <button type="button" className="secondary" onClick={() => remove(s)} aria-label={`Remove ${s.email || s.webhookUrl}`}>
                          Remove
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </Table>
              <p className="actions">
                {`${offset + 1}–${offset + list.data.subscribers.length} of ${total}`}{" "}
                <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                  Previous
                </button>
                <button type="button" className="secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                  Next
                </button>
              </p>
            </>
          )}
        </>
      )}
    </Page>
  );
}
