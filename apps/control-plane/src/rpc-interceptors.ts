import { Code, type Interceptor } from "@connectrpc/connect";
import { toConnectError } from "./errors";
import type { Logger } from "@vigil/logging";
import { recordApiRequest } from "./metrics/record";

/** Turns domain errors into Connect errors, logs every call as one JSON line and counts it in the metrics. */
export function errorsAndLogging(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const started = performance.now();
    const log = (code: string, error?: unknown) => {
      const entry = { rpc: `${req.service.typeName}/${req.method.name}`, code, ms: +(performance.now() - started).toFixed(2) };
      recordApiRequest(req.service.typeName, req.method.name, code, entry.ms / 1000);
      if (error) logger.error({ ...entry, err: error }, "rpc failed");
      else logger.info(entry, "rpc");
    };
    const failed = (error: unknown) => {
      const connectError = toConnectError(error);
      log(Code[connectError.code] ?? String(connectError.code), connectError.code === Code.Internal ? error : undefined);
      return connectError;
    };
    try {
      const res = await next(req);
      if (!res.stream) {
        log("ok");
        return res;
      }
      // A stream's call ends when its last message is sent; its failures come while it is read.
      async function* logged(messages: AsyncIterable<unknown>) {
        try {
          yield* messages;
          log("ok");
        } catch (error) {
          throw failed(error);
        }
      }
      return { ...res, message: logged(res.message) } as typeof res;
    } catch (error) {
      throw failed(error);
    }
  };
}
