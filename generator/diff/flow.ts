/**
 * Which way each type flows on the wire, from `x-method`/`x-side` (S32).
 * Requests and notifications are written by the caller and read by the
 * handling side (inputs); responses are written by the handler and read by
 * the caller (outputs). A type used by both, or by no method, is both.
 */
import { defsByName, reachableDefs, type Def, type SchemaIR } from "../ir.js";
import { messageRole } from "../methods.js";

/** The directions a type travels in. */
export interface Flow {
  /** Part of a request or notification: a handler must accept it from callers that have not upgraded. */
  readonly input: boolean;
  /** Part of a result: callers read it. */
  readonly output: boolean;
}

/** The flow of a type no method reaches: judged both ways. */
export const BOTH_WAYS: Flow = { input: true, output: true };

/** The flow of every def of a surface, by exported name. */
export function flowsOf(ir: SchemaIR): ReadonlyMap<string, Flow> {
  const byName = defsByName(ir.defs);
  const flows = new Map<string, { input: boolean; output: boolean }>();
  const mark = (message: Def, direction: keyof Flow): void => {
    for (const def of reachableDefs(message, byName)) {
      const flow = flows.get(def.name) ?? { input: false, output: false };
      flow[direction] = true;
      flows.set(def.name, flow);
    }
  };
  for (const def of ir.defs) {
    const role = messageRole(def);
    if (role === "response" || role === "unknown") mark(def, "output");
    if (role !== "response" && role !== undefined) mark(def, "input");
  }
  return new Map(ir.defs.map((d) => [d.name, flows.get(d.name) ?? BOTH_WAYS]));
}

/** The union of two flows (a type's flow in OLD and in NEW). */
export function mergeFlows(a: Flow | undefined, b: Flow | undefined): Flow {
  if (!a || !b) return a ?? b ?? BOTH_WAYS;
  return { input: a.input || b.input, output: a.output || b.output };
}

