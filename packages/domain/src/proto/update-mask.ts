import type { DescField } from "@bufbuild/protobuf";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { ValidationError, quoted } from "../validation";

/**
 * The fields an update mask names, each found among `updatable` by its proto
 * or JSON spelling (`degraded_at`, `degradedAt`); a path naming none of them
 * is refused on `updateMask`, saying what may be named.
 */
export function fieldsOfMask(updatable: readonly DescField[], mask: FieldMask, whatMayBeNamed: string): DescField[] {
  return mask.paths.map((path) => {
    const field = updatable.find((f) => f.name === path || f.localName === path || f.jsonName === path);
    if (!field) throw ValidationError.of("updateMask", `names ${quoted(path)}, which is not ${whatMayBeNamed}`);
    return field;
  });
}
