// V8's own answers about an object's layout, for the tests of objects kept per monitor: compiled after
// the flag that allows natives syntax, which node:v8 can set at run time.
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--allow-natives-syntax");
const natives = <F>(params: string[], body: string) => new Function(...params, body) as F;

/** False when V8 keeps the object's properties as a hash table (dictionary mode). */
export const hasFastProperties = natives<(object: object) => boolean>(["object"], "return %HasFastProperties(object)");

/** Whether two objects share one hidden class (map), as objects made by the same code should. */
export const haveSameShape = natives<(a: object, b: object) => boolean>(["a", "b"], "return %HaveSameMap(a, b)");

/** Runs `fn` once, then has V8 compile it with its optimizing compiler before the next call. */
export const optimizeAfter = natives<(fn: (...args: never[]) => unknown, warmUp: () => void) => void>(
  ["fn", "warmUp"],
  "%PrepareFunctionForOptimization(fn); warmUp(); warmUp(); %OptimizeFunctionOnNextCall(fn);",
);
