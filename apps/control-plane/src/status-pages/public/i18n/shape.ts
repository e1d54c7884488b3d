import type { en } from "./en";

type DeepStrings<T> = { [K in keyof T]: T[K] extends string ? string : DeepStrings<T[K]> };

/** Every language has every key of the English source: the typecheck refuses a translation that misses one. */
export type Messages = DeepStrings<typeof en>;

/** A key as `t` takes it: a dotted path, plural forms by their common stem. */
type Keys<T, P extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K extends `${infer Stem}_${"one" | "other"}` ? Stem : K}` : Keys<T[K], `${P}${K}.`>;
}[keyof T & string];
export type MessageKey = Keys<Messages>;
