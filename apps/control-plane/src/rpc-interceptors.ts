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
    try {
      const res = await next(req);
      log("ok");
      return res;
    } catch (error) {
      const connectError = toConnectError(error);
      log(Code[connectError.code] ?? String(connectError.code), connectError.code === Code.Internal ? error : undefined);
      throw connectError;
    }
  };
}
