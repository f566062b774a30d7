/** The corpus lines with their routes and JSON-RPC envelope decoders, for the owned-tree tests. */
import { generateCorpus } from "../../bench/corpus.js";
import { buildMethodTable, indexRequests, loadSchema, routeMessage, type Route } from "../../bench/route.js";

/** The envelope a request or notification of this route is sent in, named after its sender (x-side names the receiver). */
export function envelopeOf(route: Route): string | undefined {
  if (route.kind !== "request" && route.kind !== "notification") return undefined;
  const sender = route.receiver === "agent" ? "Client" : route.receiver === "client" ? "Agent" : undefined;
  return sender && `${sender}${route.kind === "request" ? "Request" : "Notification"}`;
}

/** The 20,000-message corpus (v2/unstable): each line with its route, and `route` for a fresh `JSON.parse` of a line. */
export function routedCorpus(): { lines: { line: string; route: Route | undefined }[]; route: (message: unknown) => Route | undefined } {
  const lines = generateCorpus();
  const table = buildMethodTable(loadSchema());
  const requests = indexRequests(lines.map((l) => JSON.parse(l)));
  const route = (message: unknown) => routeMessage(message, table, requests);
  return { lines: lines.map((line) => ({ line, route: route(JSON.parse(line)) })), route };
}
