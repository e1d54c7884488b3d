import {
  apiRequestDuration,
  apiRequests,
  lastReconciliation,
  notificationDeliveries,
  notificationDeliveryDuration,
  reconciliationDuration,
  resultsIngestBatchSize,
  resultsIngestDuration,
  schedulerDrift,
  type DeliveryOutcome,
} from "./definitions";

/** The hooks the working code calls: one line each where the work happens. */

export function recordApiRequest(service: string, method: string, code: string, seconds: number): void {
  apiRequests.inc({ service, method, code });
  apiRequestDuration.observe({ service, method }, seconds);
}

/** Call when a batch of results is read; the returned function when it is stored and acknowledged. */
export function startIngest(batchSize: number): () => void {
  resultsIngestBatchSize.observe(batchSize);
  const end = resultsIngestDuration.startTimer();
  return () => void end();
}

/** Call when a reconciliation starts; the returned function with the drift it found once it succeeded. */
export function startReconciliation(): (drift: { missing: number; stale: number }) => void {
  const end = reconciliationDuration.startTimer();
  return ({ missing, stale }) => {
    end();
    schedulerDrift.inc({ drift: "missing" }, missing);
    schedulerDrift.inc({ drift: "stale" }, stale);
    lastReconciliation.setToCurrentTime();
  };
}

/** Call when a delivery attempt is sent; the returned function with its outcome once the provider answered. */
export function startDelivery(provider: string): (outcome: DeliveryOutcome) => void {
  const end = notificationDeliveryDuration.startTimer({ provider });
  return (outcome) => {
    end();
    notificationDeliveries.inc({ provider, outcome });
  };
}
