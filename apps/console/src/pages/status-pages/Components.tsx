import { timestampDate } from "@bufbuild/protobuf/wkt";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@connectrpc/connect-query";
import { COMPONENT_TYPES, componentMonitorViolations, componentSchema, groupSchema } from "@vigil/domain/status-pages";
import { MonitorService } from "@vigil/proto";
import { StatusPageService, type StatusPage, type StatusPageComponent, type StatusPageComponentGroup } from "@vigil/proto/status-page";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { FormMessage } from "../../ui";
import { useAction, useClient } from "../../controls";
import { HookField, useApiErrors } from "./forms";
import { SortableList } from "./Sortable";

/** What the page shows at its top level: a component outside any group, or a group standing where its first component does. */
type Item = { id: string; component: StatusPageComponent } | { id: string; group: StatusPageComponentGroup; components: StatusPageComponent[] };

const created = (c: { createdAt?: Parameters<typeof timestampDate>[0] }) => (c.createdAt ? timestampDate(c.createdAt).getTime() : 0);

/**
 * The page's order as the public page draws it (docs/status-pages.md, "Order"): components come listed
 * by `order`; a group takes the place of its first component; inside it, `groupOrder`, then creation.
 * Groups without components come last, so that they can be filled.
 */
function itemsOf(components: StatusPageComponent[], groups: StatusPageComponentGroup[]): Item[] {
  const items: Item[] = [];
  for (const component of components) {
    const group = groups.find((g) => g.id === component.groupId);
    if (!group) items.push({ id: component.id, component });
    else if (!items.some((i) => i.id === group.id)) items.push({ id: group.id, group, components: [] });
  }
  for (const group of groups) if (!items.some((i) => i.id === group.id)) items.push({ id: group.id, group, components: [] });
  for (const item of items) {
    if ("group" in item) item.components = components.filter((c) => c.groupId === item.id).sort((a, b) => (a.groupOrder ?? 0) - (b.groupOrder ?? 0) || created(a) - created(b));
  }
  return items;
}

export function Components({ page, mayEdit }: { page: StatusPage; mayEdit: boolean }) {
  const components = useQuery(StatusPageService.method.listStatusPageComponents, { pageId: page.id, limit: 100 }, { retry: false });
  const groups = useQuery(StatusPageService.method.listStatusPageComponentGroups, { pageId: page.id, limit: 100 }, { retry: false });
  const monitors = useQuery(MonitorService.method.listMonitors, { limit: 100 }, { retry: false });
  const client = useClient(StatusPageService);
  const action = useAction();
  // The order just chosen, shown while it is saved (the lists are then asked again).
  const [moved, setMoved] = useState<{ top?: string[]; groups: Record<string, string[]> }>({ groups: {} });
  if (!components.data || !groups.data) return components.error || groups.error ? <FormMessage message={(components.error ?? groups.error)!.message} /> : null;

  const monitorList = [...(monitors.data?.httpMonitors ?? []), ...(monitors.data?.tcpMonitors ?? []), ...(monitors.data?.dnsMonitors ?? []), ...(monitors.data?.grpcMonitors ?? [])];
  const monitorName = (id: string | undefined) => monitorList.find((m) => m.id === id)?.name ?? "";
  const componentName = (c: StatusPageComponent) => c.name || monitorName(c.monitorId) || (c.type === "static" ? "Static component" : "Monitor component");
  const items = itemsOf(components.data.components, groups.data.groups);
  const byId = new Map(items.map((i) => [i.id, i]));
  const itemName = (id: string) => {
    const item = byId.get(id);
    return !item ? id : "group" in item ? `group ${item.group.name}` : componentName(item.component);
  };
  const topIds = moved.top ?? items.map((i) => i.id);

  /** Saves a new top-level order: each item's components take its position as `order`. */
  const reorderTop = (ids: string[]) => {
    setMoved((m) => ({ ...m, top: ids }));
    const updates = ids.flatMap((id, position) => {
      const item = byId.get(id)!;
      return ("group" in item ? item.components : [item.component]).filter((c) => (c.order ?? 0) !== position).map((c) => ({ c, position }));
    });
    void action
      .run(() => Promise.all(updates.map(({ c, position }) => client.updateStatusPageComponent({ pageId: page.id, id: c.id, component: { order: position }, updateMask: { paths: ["order"] } }))))
      .then(() => setMoved((m) => ({ ...m, top: undefined })));
  };
  const reorderGroup = (groupId: string, ids: string[]) => {
    setMoved((m) => ({ ...m, groups: { ...m.groups, [groupId]: ids } }));
    void action
      .run(() =>
        Promise.all(ids.map((id, position) => client.updateStatusPageComponent({ pageId: page.id, id, component: { groupOrder: position }, updateMask: { paths: ["group_order"] } }))),
      )
      .then(() => setMoved((m) => ({ ...m, groups: { ...m.groups, [groupId]: undefined as unknown as string[] } })));
  };

  const row = (c: StatusPageComponent) => <ComponentRow key={c.id} page={page} component={c} name={componentName(c)} monitors={monitorList} groups={groups.data!.groups} mayEdit={mayEdit} />;
  const itemView = (id: string) => {
    const item = byId.get(id);
    if (!item) return null;
    if (!("group" in item)) return row(item.component);
    const groupIds = moved.groups[id] ?? item.components.map((c) => c.id);
    const inGroup = new Map(item.components.map((c) => [c.id, c]));
    return (
      <section className="group" aria-label={`Group ${item.group.name}`}>
        <GroupRow page={page} group={item.group} mayEdit={mayEdit} />
        {item.components.length === 0 ? (
          <p className="hint">No component yet: choose this group in a component's form.</p>
        ) : mayEdit ? (
          <SortableList label={`group ${item.group.name}`} ids={groupIds} nameOf={(cid) => componentName(inGroup.get(cid)!)} onReorder={(next) => reorderGroup(id, next)}>
            {(cid) => row(inGroup.get(cid)!)}
          </SortableList>
        ) : (
          <ol className="sortable">{item.components.map((c) => <li key={c.id}>{row(c)}</li>)}</ol>
        )}
      </section>
    );
  };

  return (
    <>
      <h2>Components and groups</h2>
      {action.message}
      {items.length === 0 && <p>No component yet.</p>}
      {mayEdit ? (
        <>
          <p className="hint">Drag a handle, or focus it and press Space, then the arrows, then Space, to change the order the public page shows.</p>
          <SortableList label="the page" ids={topIds} nameOf={itemName} onReorder={reorderTop}>
            {itemView}
          </SortableList>
          <h3>Add a component</h3>
          <ComponentForm page={page} monitors={monitorList} groups={groups.data.groups} order={items.length} />
          <h3>Add a group</h3>
          <GroupForm page={page} />
        </>
      ) : (
        <ol className="sortable">{items.map((i) => <li key={i.id}>{itemView(i.id)}</li>)}</ol>
      )}
    </>
  );
}

type Monitor = { id: string; name?: string | undefined };

function ComponentRow({ page, component, name, monitors, groups, mayEdit }: { page: StatusPage; component: StatusPageComponent; name: string; monitors: Monitor[]; groups: StatusPageComponentGroup[]; mayEdit: boolean }) {
  const [editing, setEditing] = useState(false);
  const client = useClient(StatusPageService);
  const action = useAction();
  return (
    <div className="component" data-testid="component">
      <p>
        <strong>{name}</strong> <span className="hint">{component.type === "monitor" ? "monitor" : "static"}</span>
      </p>
      {mayEdit && (
        <p className="actions">
          <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit {name}
          </button>
          <button type="button" className="secondary" onClick={() => void action.run(() => client.deleteStatusPageComponent({ pageId: page.id, id: component.id }), `Remove ${name} from the page?`)}>
            Remove {name}
          </button>
        </p>
      )}
      {action.message}
      {editing && <ComponentForm page={page} monitors={monitors} groups={groups} component={component} onDone={() => setEditing(false)} />}
    </div>
  );
}

const componentFormSchema = componentSchema.pick({ type: true, monitorId: true, name: true, description: true, groupId: true }).superRefine((c, ctx) => {
  for (const v of componentMonitorViolations(c)) ctx.addIssue({ code: "custom", path: [v.field], message: v.rule });
});
const COMPONENT_FIELDS = ["type", "monitorId", "name", "description", "groupId"] as const;

/** Adds a component (at the end of the page, or of its group), or edits one. */
function ComponentForm({ page, monitors, groups, component, order = 0, onDone }: { page: StatusPage; monitors: Monitor[]; groups: StatusPageComponentGroup[]; component?: StatusPageComponent; order?: number; onDone?: () => void }) {
  const client = useClient(StatusPageService);
  const form = useForm({
    resolver: zodResolver(componentFormSchema),
    defaultValues: {
      type: (component?.type || "monitor") as (typeof COMPONENT_TYPES)[number],
      monitorId: component?.monitorId ?? "",
      name: component?.name ?? "",
      description: component?.description ?? "",
      groupId: component?.groupId ?? "",
    },
  });
  const api = useApiErrors(form, COMPONENT_FIELDS);
  const submit = form.handleSubmit((fields) =>
    api.call(async () => {
      if (component) {
        await client.updateStatusPageComponent({ pageId: page.id, id: component.id, component: fields, updateMask: { paths: ["type", "monitor_id", "name", "description", "group_id"] } });
        onDone?.();
      } else {
        await client.createStatusPageComponent({ component: { ...fields, pageId: page.id, order } });
        form.reset();
      }
    }),
  );
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={component ? `Edit ${component.name || "component"}` : "Add a component"}>
      <FormMessage message={api.message} />
      <HookField form={form} name="type" label="Type" options={COMPONENT_TYPES} hint="A monitor's status, or a line that is always operational." />
      <HookField form={form} name="monitorId" label="Monitor" options={[{ value: "", label: "None (static)" }, ...monitors.map((m) => ({ value: m.id, label: m.name || m.id }))]} />
      <HookField form={form} name="name" label="Name" hint="Empty: the monitor's name." />
      <HookField form={form} name="description" label="Description" multiline />
      <HookField form={form} name="groupId" label="Group" options={[{ value: "", label: "No group" }, ...groups.map((g) => ({ value: g.id, label: g.name ?? g.id }))]} />
      <button type="submit" disabled={form.formState.isSubmitting}>
        {component ? "Save component" : "Add component"}
      </button>
    </form>
  );
}

function GroupRow({ page, group, mayEdit }: { page: StatusPage; group: StatusPageComponentGroup; mayEdit: boolean }) {
  const [editing, setEditing] = useState(false);
  const client = useClient(StatusPageService);
  const action = useAction();
  return (
    <div className="group-head">
      <h3>{group.name}</h3>
      {mayEdit && (
        <p className="actions">
          <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Rename group {group.name}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => void action.run(() => client.deleteStatusPageComponentGroup({ pageId: page.id, id: group.id }), `Remove the group ${group.name}? Its components stay, ungrouped.`)}
          >
            Remove group {group.name}
          </button>
        </p>
      )}
      {action.message}
      {editing && <GroupForm page={page} group={group} onDone={() => setEditing(false)} />}
    </div>
  );
}

function GroupForm({ page, group, onDone }: { page: StatusPage; group?: StatusPageComponentGroup; onDone?: () => void }) {
  const client = useClient(StatusPageService);
  const form = useForm({ resolver: zodResolver(groupSchema), defaultValues: { name: group?.name ?? "" } });
  const api = useApiErrors(form, ["name"]);
  const submit = form.handleSubmit(({ name }) =>
    api.call(async () => {
      if (group) {
        await client.updateStatusPageComponentGroup({ pageId: page.id, id: group.id, group: { name }, updateMask: { paths: ["name"] } });
        onDone?.();
      } else {
        await client.createStatusPageComponentGroup({ group: { pageId: page.id, name } });
        form.reset();
      }
    }),
  );
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={group ? `Rename group ${group.name}` : "Add a group"}>
      <FormMessage message={api.message} />
      <HookField form={form} name="name" label="Group name" />
      <button type="submit" disabled={form.formState.isSubmitting}>
        {group ? "Save group" : "Add group"}
      </button>
    </form>
  );
}
