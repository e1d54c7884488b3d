import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";

/** A validator of vigil.yaml files by the JSON Schema `vigil schema` prints, formats (date-time) included. */
export function fileSchemaValidator(schemaJson: string) {
  const ajv = new Ajv2020({ strict: false });
  // A CommonJS module whose plugin is its `default` export.
  formats.default(ajv);
  return ajv.compile(JSON.parse(schemaJson));
}
