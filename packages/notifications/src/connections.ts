import { closeHttpConnections } from "./http";
import { closeEmailTransports } from "./providers/email";

/** Closes every connection kept open to providers (HTTP pools, SMTP pools), at shutdown. */
export async function closeProviderConnections(): Promise<void> {
  closeEmailTransports();
  await closeHttpConnections();
}
