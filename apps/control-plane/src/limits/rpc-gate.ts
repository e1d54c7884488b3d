import { Code, ConnectError, createContextKey, createContextValues, type HandlerContext } from "@connectrpc/connect";
import { connectHeaders, credentialOf } from "../auth/callers";
import type { Request } from "../http/json";
import { clientAddress, type RequestRates } from "./request-rates";

const clientAddressKey = createContextKey<string>("", { description: "the client's address" });

/** The client's address of an RPC (what clientAddress reads off a plain HTTP request). */
export const clientAddressOf = (context: HandlerContext): string => context.values.get(clientAddressKey);

/** The Connect adapter's contextValues: the connection's peer address, which the RPC context does not otherwise hold. */
export function rpcContextValues(req: Request) {
  return createContextValues().set(clientAddressKey, clientAddress(req));
}

/**
 * The Connect adapter's requestGate: counts every call against the rate
 * limits before its body is read or its key looked up, so that a flood costs
 * neither parsing nor database queries. Over a limit: resource_exhausted with
 * a Retry-After header (seconds).
 */
export function rateLimitGate(rates: RequestRates) {
  return async (context: HandlerContext): Promise<void> => {
    const refusal = await rates.apiCall(clientAddressOf(context), credentialOf(connectHeaders(context.requestHeader)));
    if (refusal) throw new ConnectError(refusal.message, Code.ResourceExhausted, { "retry-after": String(refusal.retryAfterSeconds) });
  };
}
