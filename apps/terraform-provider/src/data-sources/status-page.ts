import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import type { DataSourceDefinition } from "../resources/definition.js";
import { answered } from "../resources/common.js";
import { pageOutput, statusPageSchemaSpec } from "../resources/status-page.js";

/** The page resource's attributes, all read-only but the id that selects the page. */
const schema: BlockSpec = {
  attributes: Object.fromEntries(
    Object.entries(statusPageSchemaSpec.attributes).map(([name, spec]) => [
      name,
      name === "id" ? required("string", "The page's id.") : computed(spec.type, spec.description, { sensitive: spec.sensitive }),
    ]),
  ),
};

export const statusPageDataSource: DataSourceDefinition = {
  typeName: "service_status_page",
  description: "Reads a status page by id. Its password is write-only in the API: always null here.",
  schema,
  async read(ctx, config) {
    const { statusPage } = await ctx.client.statusPages.getStatusPage({ id: String(config.id) }, { signal: ctx.signal });
    return fromOutput(schema, pageOutput(answered(statusPage, "status page")));
  },
};
