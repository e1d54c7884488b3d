import { ConnectError, type Code } from "@connectrpc/connect";

/** The outcome of a call: "ok", or the Connect code it failed with. */
export async function codeOf(call: Promise<unknown>): Promise<Code | "ok"> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

/** The error of a call that must fail. */
export async function rejection(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was accepted, but it should have been rejected");
}

/**
 * The call fails with `code` and a message containing `message`, and what it
 * could have written (`snapshot`) is as it was: a refused request writes nothing.
 */
export async function expectRefused(snapshot: () => Promise<unknown>, call: () => Promise<unknown>, code: Code, message: string): Promise<void> {
  const before = await snapshot();
  const error = await call().then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  expect({ code: error?.code, message: error?.rawMessage }).toEqual({ code, message: expect.stringContaining(message) });
  expect(await snapshot()).toEqual(before);
}
