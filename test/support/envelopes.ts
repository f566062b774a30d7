/** The JSON-RPC envelope decoders of the corpus lines, for the owned-tree tests. */
import type { Route } from "../../bench/route.js";

/** The envelope a request or notification of this route is sent in, named after its sender (x-side names the receiver). */
export function envelopeOf(route: Route): string | undefined {
  if (route.kind !== "request" && route.kind !== "notification") return undefined;
  const sender = route.receiver === "agent" ? "Client" : route.receiver === "client" ? "Agent" : undefined;
  return sender && `${sender}${route.kind === "request" ? "Request" : "Notification"}`;
}
