import type * as builtClient from "../../dist/index.js";

export type ClientPackage = typeof builtClient;

/**
 * The package as its users get it: the built ES module in dist/ (build it with
 * `pnpm -s build` in packages/client). A missing build fails the test; there is
 * no fallback to the sources.
 */
export const loadBuiltClient = (): Promise<ClientPackage> => import("../../dist/index.js");

/** What a call failed with; fails the test if it succeeded. */
export async function failureOf(call: Promise<unknown>): Promise<InstanceType<ClientPackage["VigilError"]>> {
  const { VigilError } = await loadBuiltClient();
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(VigilError);
    return error as InstanceType<ClientPackage["VigilError"]>;
  }
  throw new Error("the call succeeded, a failure was expected");
}
