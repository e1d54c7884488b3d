import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors, type Announcements, type DragEndEvent, type UniqueIdentifier } from "@dnd-kit/core";
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import type { ReactNode } from "react";

const INSTRUCTIONS = {
  draggable: "To move an item, press Space or Enter to pick it up, the up and down arrows to move it, Space or Enter to drop it, Escape to put it back.",
};

/**
 * A list ordered by drag (mouse, touch) and by keyboard (its handle: Space, arrows, Space),
 * each move told to screen readers with the item's name and position. `onReorder` gets the new order.
 */
export function SortableList({ label, ids, nameOf, onReorder, children }: { label: string; ids: string[]; nameOf: (id: string) => string; onReorder: (ids: string[]) => void; children: (id: string) => ReactNode }) {
  const sensors = useSensors(useSensor(PointerSensor), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));
  const name = (id: UniqueIdentifier) => nameOf(String(id));
  const position = (id: UniqueIdentifier) => `position ${ids.indexOf(String(id)) + 1} of ${ids.length}`;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${name(active.id)}, at ${position(active.id)} in ${label}.`,
    onDragOver: ({ active, over }) => (over ? `${name(active.id)} is over ${position(over.id)}.` : `${name(active.id)} is outside ${label}.`),
    onDragEnd: ({ active, over }) => (over ? `${name(active.id)} dropped at ${position(over.id)}.` : `${name(active.id)} put back.`),
    onDragCancel: ({ active }) => `Moving ${name(active.id)} cancelled: it stays where it was.`,
  };
  const end = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    onReorder(arrayMove(ids, ids.indexOf(String(active.id)), ids.indexOf(String(over.id))));
  };
  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={end} accessibility={{ announcements, screenReaderInstructions: INSTRUCTIONS }}>
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        <ol className="sortable" aria-label={label}>
          {ids.map((id) => (
            <SortableItem key={id} id={id} name={nameOf(id)}>
              {children(id)}
            </SortableItem>
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function SortableItem({ id, name, children }: { id: string; name: string; children: ReactNode }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id });
  // React sets `style` through the CSSOM (element.style), which the Content-Security-Policy allows; no style attribute is written.
  return (
    <li ref={setNodeRef} className={isDragging ? "dragging" : undefined} style={{ transform: CSS.Transform.toString(transform), transition }} data-testid="sortable-item">
      <button type="button" className="handle secondary" ref={setActivatorNodeRef} {...attributes} {...listeners} aria-label={`Move ${name}`}>
        ↕
      </button>
      <div className="sortable-body">{children}</div>
    </li>
  );
}
