/**
 * JSON-RPC envelopes (`ClientRequest`, `AgentResponse`, ... : the `x-docs-ignore`
 * dispatch wrappers of S32). Their `params` / `result` is an untagged union of
 * every method's type plus an extension branch that accepts anything, so
 * "first alternative that decodes" would pick a wrong type and drop its fields.
 * The tolerant parser decodes such a union by the method instead: the method
 * named by the message's `method` field, or for responses (which carry none) the
 * method the caller says it asked.
 */
import type { Def, Node, UnionNode } from "../ir.js";

/** A union decoded by method: each method's type, and the branch of methods not in the table. */
export interface MethodDispatch {
  /** `[method, def name]`, in the union's order. */
  readonly methods: readonly (readonly [string, string])[];
  /** The branch without `x-method` (extension methods, kept raw), if the union has one. */
  readonly fallback?: Node;
}

/**
 * The method dispatch of `node` when it is a union of method types (every
 * option a `$ref`, at least one to a def with `x-method`, at most one other);
 * `undefined` for any other node. Two options for one method fail generation:
 * the message could not be decoded by its method.
 */
export function methodDispatch(node: Node, defs: ReadonlyMap<string, Def>): MethodDispatch | undefined {
  if (node.kind !== "union" || !node.options.every((o) => o.node.kind === "ref")) return undefined;
  const targets = node.options.map((o) => defs.get((o.node as { name: string }).name));
  const methods = targets.flatMap((d) => (d?.method ? [[d.method.method, d.name] as const] : []));
  const others = (node as UnionNode).options.filter((_, i) => !targets[i]?.method);
  if (methods.length === 0 || others.length > 1) return undefined;
  const seen = new Set<string>();
  for (const [method, name] of methods) {
    if (seen.has(method)) throw new Error(`method ${JSON.stringify(method)} has two types in one message union (${name}); a message could not be decoded by its method`);
    seen.add(method);
  }
  return others[0] ? { methods, fallback: others[0].node } : { methods };
}
