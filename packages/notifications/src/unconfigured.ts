import { DeliveryError } from "./errors";

/**
 * Refuses a send that the deployment lacks settings for, naming them: a
 * channel may outlive the settings it was created under (a restart without
 * TELEGRAM_BOT_TOKEN), and retrying cannot help until an operator sets them.
 */
export function refuseUnconfigured(missing: string[]): void {
  if (missing.length > 0) throw new DeliveryError(`not configured on this Vigil deployment: set ${missing.join(", ")}`, false);
}
