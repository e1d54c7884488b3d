import { createConnectRouter, type ConnectRouter, type ConnectRouterOptions, type ContextValues } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Logger } from "@vigil/logging";
import type { Request, Response } from "./json";

export interface RpcHandlerOptions extends ConnectRouterOptions {
  routes(router: ConnectRouter): void;
  /** What answers a request for no RPC (the plain HTTP routes). */
  fallback(req: Request, res: Response): void;
  contextValues?(req: Request): ContextValues;
  logger: Logger;
}

/**
 * Serves the RPCs `routes` registers, as connect-node's connectNodeAdapter does, from the parts connect-node
 * exports for this (universalRequestFromNodeRequest, universalResponseToNodeResponse), with one difference: an
 * answer that cannot be written because its client left (a console closed with its overview stream open) is no
 * failure, and any other is logged through the service's JSON logger. The adapter writes both to stderr with
 * console.error.
 */
export function rpcHandler(options: RpcHandlerOptions): (req: Request, res: Response) => void {
  const { logger } = options;
  const router = createConnectRouter(options);
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (req, res) => {
    const handler = handlers.get(req.url?.split("?", 2)[0] ?? "");
    if (!handler) return options.fallback(req, res);
    const request = universalRequestFromNodeRequest(req as never, res as never, undefined, options.contextValues?.(req));
    handler(request)
      .then((answer) => universalResponseToNodeResponse(answer, res as never))
      .catch((error: unknown) => {
        const rpc = `${handler.service.typeName}/${handler.method.name}`;
        if (request.signal.aborted) logger.debug({ rpc }, "the client left before its answer was written");
        else logger.error({ rpc, err: error }, "writing an rpc's answer failed");
      });
  };
}
