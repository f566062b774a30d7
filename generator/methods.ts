/**
 * The protocol's methods, derived from `x-method` / `x-side` (S32). A def is
 * a method's params, result or notification params by its name suffix
 * (`...Request`, `...Response`, `...Notification`); `x-side` names the side
 * that handles the method.
 */
import type { Def, SchemaIR } from "./ir.js";
import { SchemaError } from "./load.js";

/** One method handled by one side. */
export interface MethodEntry {
  readonly method: string;
  readonly side: string;
  readonly kind: "request" | "notification";
  /** `$defs` key of the params (the request or notification type). */
  readonly params?: string;
  /** `$defs` key of the result, for requests. */
  readonly result?: string;
}

/** What a method type carries, from the ACP naming of message types; `undefined` for a type of no method. */
export function messageRole(def: Def): "request" | "response" | "notification" | "unknown" | undefined {
  if (!def.method) return undefined;
  const role = /(Request|Response|Notification)$/.exec(def.name)?.[1];
  return role ? (role.toLowerCase() as "request" | "response" | "notification") : "unknown";
}

/** Every method of a surface, sorted by side, kind and name; `file` is used in errors. */
export function methodTable(ir: SchemaIR, file: string): MethodEntry[] {
  const entries = new Map<string, { method: string; side: string; kind: MethodEntry["kind"]; params?: string; result?: string }>();
  for (const def of ir.defs) {
    const role = messageRole(def);
    if (!def.method || role === undefined) continue;
    if (role === "unknown") throw new SchemaError(file, def.pointer, `"${def.name}" has x-method but its name does not end in Request, Response or Notification`);
    const kind = role === "notification" ? "notification" : "request";
    const slot = role === "response" ? "result" : "params";
    const key = `${def.method.side} ${kind} ${def.method.method}`;
    const entry = entries.get(key) ?? { method: def.method.method, side: def.method.side, kind };
    if (entry[slot] !== undefined) throw new SchemaError(file, def.pointer, `method ${def.method.method} (${def.method.side}) has two ${slot} types`);
    entry[slot] = def.name;
    entries.set(key, entry);
  }
  return [...entries.keys()].sort().map((key) => entries.get(key)!);
}
