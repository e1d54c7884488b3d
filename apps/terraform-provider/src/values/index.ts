export { decodeMsgpack, encodeMsgpack } from "./dynamic-value.js";
export { valuesEqual } from "./equality.js";
export { decodeStateJson } from "./raw-state.js";
export { UNKNOWN, encodeType, isObject, isUnknown, type CtyType, type TfObject, type TfValue, type Unknown } from "./types.js";
