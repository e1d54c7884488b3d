import type FindMyWay from "find-my-way";
import type { HTTPVersion } from "find-my-way";
import { ACK_LINK_VALID_HOURS } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { formatTime } from "@vigil/notifications";
import type { Request, Response } from "../http/json";
import { notice, sendPage, type PlainPage } from "../status-pages/public/forms";
import { ackLinkPath, type Acknowledgements, type IncidentRow, type LinkState } from "./acknowledgements";

const acknowledged = (incident: IncidentRow) =>
  incident.acknowledgedAt ? `Acknowledged ${formatTime(incident.acknowledgedAt)} by ${incident.acknowledgedBy ?? "someone"}.` : "";

/** The page of a link that cannot acknowledge (anymore), with its status: 404 unknown, 410 used or expired. */
function refusal(state: Exclude<LinkState, { state: "usable" }>): [number, PlainPage] {
  if (state.state === "unknown") return [404, notice("Link not valid", "This acknowledgement link is not one Vigil sent.")];
  if (state.state === "used") return [410, notice("Link already used", `Each acknowledgement link works once. ${acknowledged(state.incident)}`.trim())];
  const why = state.incident.resolvedAt
    ? `The incident was resolved ${formatTime(state.incident.resolvedAt)}.`
    : `Acknowledgement links work for ${ACK_LINK_VALID_HOURS / 24} days.`;
  return [410, notice("Link expired", why)];
}

/** The confirmation a GET shows: the incident, and a button that POSTs, so a mail scanner following links acknowledges nothing. */
function confirmation(state: Extract<LinkState, { state: "usable" }>): PlainPage {
  const { incident } = state;
  const done = acknowledged(incident);
  return {
    title: "Acknowledge incident",
    body: (
      <>
        <h1>Acknowledge incident</h1>
        <p>
          {state.monitorName}: {incident.severity === "error" ? "down" : "degraded"} since {formatTime(incident.startedAt)}.
        </p>
        {done ? (
          <p>{done}</p>
        ) : (
          <form method="post">
            <p>Acknowledging stops this incident's reminders and tells its webhook, PagerDuty and Opsgenie channels.</p>
            <button type="submit">Acknowledge</button>
          </form>
        )}
      </>
    ),
  };
}

/**
 * `GET` and `POST <PUBLIC_URL>/v1/incidents/ack/<token>` (docs/alerting.md,
 * "Acknowledging"): the token is the credential, single use, so these need
 * no session.
 */
export function registerAckRoutes(router: FindMyWay.Instance<HTTPVersion.V1>, acknowledgements: Acknowledgements, logger: Logger): void {
  const on = (method: "GET" | "POST", handler: (token: string) => Promise<[number, PlainPage]>) =>
    router.on(method, ackLinkPath(":token"), (_req: Request, res: Response, params) => {
      handler(params.token ?? "").then(
        ([status, page]) => sendPage(res, status, page),
        (error: unknown) => {
          logger.error({ err: error, method }, "incident acknowledgement link failed");
          if (!res.headersSent) sendPage(res, 500, notice("Something went wrong", "Try again in a moment."));
        },
      );
    });

  on("GET", async (token) => {
    const state = await acknowledgements.linkState(token);
    return state.state === "usable" ? [200, confirmation(state)] : refusal(state);
  });

  on("POST", async (token) => {
    const state = await acknowledgements.acknowledgeByLink(token);
    if (state.state !== "usable") return refusal(state);
    logger.info({ incident: state.incident.id, by: state.incident.acknowledgedBy }, "incident acknowledged by link");
    return [200, notice("Incident acknowledged", `${state.monitorName}: ${acknowledged(state.incident)} Its reminders stop.`)];
  });
}
