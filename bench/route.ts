/**
 * Message routing shared by the corpus checker and every benchmark contender:
 * given a decoded JSON-RPC 2.0 message, pick the `$defs` key that types its
 * payload (request/notification `params`, response `result`, or `error`).
 *
 * The table is read from the schema's `x-method` / `x-side` annotations, the
 * same way the SDK's method tables are generated. `x-side` names the side
 * that *handles* the method, so a request or notification flows towards that
 * side, and a response flows back from it.
 */
import { readFileSync } from "node:fs";

/** Path of the pinned schema this benchmark is about. */
export const SCHEMA_URL = new URL("../schema/v2/schema.unstable.json", import.meta.url);

export type JsonSchema = { $defs: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/** What a message is on the wire. */
export type MessageKind = "request" | "notification" | "response" | "error";

/** Side that receives a message. */
export type Receiver = "agent" | "client" | "protocol" | "proxy" | "any";

/** The `$def` chosen for one message and the value that must be checked against it. */
export interface Route {
  kind: MessageKind;
  /** Method of the request, notification, or of the request a response answers. */
  method: string;
  /** Side the message travels to. */
  receiver: Receiver;
  /** `$defs` key for `value`. */
  def: string;
  /** `params`, `result` or `error` of the message (`undefined` when absent). */
  value: unknown;
}

/** Method table: kind -> method -> `$defs` key and receiving side. */
export type MethodTable = Readonly<Record<"request" | "notification" | "response", ReadonlyMap<string, MethodEntry>>>;

export interface MethodEntry {
  def: string;
  receiver: Receiver;
}

/** `x-method` defs are named `<Something>Request`, `...Notification`, `...Response`. */
const SUFFIX_KIND: ReadonlyArray<[string, "request" | "notification" | "response"]> = [
  ["Request", "request"],
  ["Notification", "notification"],
  ["Response", "response"],
];

/** Reads and parses the pinned schema. */
export function loadSchema(url: URL = SCHEMA_URL): JsonSchema {
  return JSON.parse(readFileSync(url, "utf8")) as JsonSchema;
}

/** Builds the method table from the schema's `x-method`/`x-side` annotations. */
export function buildMethodTable(schema: JsonSchema): MethodTable {
  const table = { request: new Map<string, MethodEntry>(), notification: new Map<string, MethodEntry>(), response: new Map<string, MethodEntry>() };
  for (const [def, node] of Object.entries(schema.$defs)) {
    const method = node["x-method"];
    const side = node["x-side"];
    if (typeof method !== "string" || typeof side !== "string") continue;
    const kind = SUFFIX_KIND.find(([suffix]) => def.endsWith(suffix))?.[1];
    if (kind === undefined) throw new Error(`x-method def ${def} has no Request/Notification/Response suffix`);
    const byMethod = table[kind];
    if (byMethod.has(method)) throw new Error(`two ${kind} defs for ${method}: ${byMethod.get(method)?.def} and ${def}`);
    // A response travels back to the side that sent the request.
    const receiver = kind === "response" ? opposite(side as Receiver) : (side as Receiver);
    byMethod.set(method, { def, receiver });
  }
  return table;
}

function opposite(side: Receiver): Receiver {
  if (side === "agent") return "client";
  if (side === "client") return "agent";
  return side;
}

/** Extension methods (`_vendor/...`) are typed by the open Ext* defs. */
function extensionDef(kind: "request" | "notification" | "response"): string {
  return kind === "request" ? "ExtRequest" : kind === "notification" ? "ExtNotification" : "ExtResponse";
}

/**
 * The one function that maps (kind, method) to a `$defs` key. Because the
 * only method name used in both directions (`mcp/message`) is a request one
 * way and a notification the other, kind + method also fixes the direction.
 */
export function defFor(
  table: MethodTable,
  kind: "request" | "notification" | "response",
  method: string,
): MethodEntry | undefined {
  const hit = table[kind].get(method);
  if (hit !== undefined) return hit;
  if (method.startsWith("_")) return { def: extensionDef(kind), receiver: "any" };
  return undefined;
}

/** Request ids are unique within the corpus (client: numbers, agent: strings). */
export type RequestMethods = ReadonlyMap<string | number, string>;

/**
 * Collects `id -> method` for every request in the corpus, as a connection
 * does with its pending-request table. Done once, outside any timing.
 */
export function indexRequests(messages: readonly unknown[]): RequestMethods {
  const byId = new Map<string | number, string>();
  for (const msg of messages) {
    if (!isRecord(msg)) continue;
    const { id, method } = msg;
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) byId.set(id, method);
  }
  return byId;
}

/**
 * Routes one decoded message to its payload `$def`; `undefined` when the
 * envelope is not JSON-RPC 2.0 or the method is unknown.
 */
export function routeMessage(msg: unknown, table: MethodTable, requests: RequestMethods): Route | undefined {
  if (!isRecord(msg) || msg.jsonrpc !== "2.0") return undefined;
  const { id, method } = msg;
  if (typeof method === "string") {
    const kind = id === undefined ? "notification" : "request";
    const hit = defFor(table, kind, method);
    return hit && { kind, method, receiver: hit.receiver, def: hit.def, value: msg.params };
  }
  const answered = typeof id === "string" || typeof id === "number" ? requests.get(id) : undefined;
  if ("error" in msg) return { kind: "error", method: answered ?? "", receiver: "any", def: "Error", value: msg.error };
  if (answered === undefined) return undefined;
  const hit = defFor(table, "response", answered);
  return hit && { kind: "response", method: answered, receiver: hit.receiver, def: hit.def, value: msg.result };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
