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
