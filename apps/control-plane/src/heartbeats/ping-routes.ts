import { LIMITS, isPingToken, parsePingSuffix } from "@vigil/domain";
import { readBodyPrefix } from "../http/body";
import { HttpError, type Request, type Response } from "../http/json";
import { clientAddress, tooManyRequests, type RequestRates } from "../limits/request-rates";
import { heartbeatPings, heartbeatPingsRefused } from "../metrics/definitions";
import { pingBodyText, type HeartbeatPings } from "./pings";

type Route = (
  method: "GET" | "POST",
  path: string,
  handler: (req: Request, res: Response, params: Record<string, string | undefined>) => Promise<void>,
) => void;

const noPingUrl = () => {
  heartbeatPingsRefused.inc({ code: "404" });
  return new HttpError("not_found", "no heartbeat monitor has this ping URL");
};

/**
 * `GET` or `POST <PUBLIC_URL>/v1/ping/<token>[/start|/fail|/<exit code>]` (docs/checks.md "Heartbeats"): the token
 * is the credential, so these take no key, and answer `OK` as plain text, which a shell script can ignore.
 */
export function registerPingRoutes(route: Route, pings: HeartbeatPings, rates: RequestRates): void {
  const handle = async (req: Request, res: Response, params: Record<string, string | undefined>) => {
    const token = params.token ?? "";
    const refusal = await rates.ping(clientAddress(req), token);
    if (refusal) {
      heartbeatPingsRefused.inc({ code: "429" });
      throw tooManyRequests(refusal);
    }
    const what = parsePingSuffix(params.suffix ?? "");
    if (!what || !isPingToken(token)) throw noPingUrl();
    const body = req.method === "POST" ? pingBodyText(await readBodyPrefix(req, LIMITS.pingBodyBytes)) : "";
    const stored = await pings.record(token, {
      ...what,
      body,
      method: req.method ?? "GET",
      address: clientAddress(req),
      userAgent: (req.headers["user-agent"] ?? "").slice(0, 512),
    });
    if (!stored) throw noPingUrl();
    heartbeatPings.inc({ outcome: stored.kind });
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end("OK\n");
  };
  for (const method of ["GET", "POST"] as const) {
    route(method, "/v1/ping/:token", handle);
    route(method, "/v1/ping/:token/:suffix", handle);
  }
}
