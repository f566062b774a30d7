/**
 * Where acp-bindings and the official `@agentclientprotocol/sdk` types
 * differ. Both are generated from the same schema and use the `$defs` names,
 * so every type exists in both; they differ in one deliberate way: an open
 * union's custom variant (S27). The SDK types its tag as `string`, which
 * makes a `switch` on the tag unable to narrow; acp-bindings types it as
 * `` `_${string}` `` (see emitTypes). So an SDK value of a type that contains
 * an open union is not assignable to the acp-bindings type, while every
 * acp-bindings value is assignable to the SDK type.
 *
 * The exception list is derived here from the IR, written into the package
 * README, and checked against the compiler by test/sdk-compat.test.ts.
 */
import { childNodes, defsByName, nodesWithin, reachableDefs, type ChildNodes, type Def, type Node, type SchemaIR, type Surface } from "../ir.js";

/** The SDK entry point holding each surface's types (the package's public subpaths). */
export const SDK_ENTRY: Readonly<Record<Surface, string>> = {
  v1: "@agentclientprotocol/sdk",
  "v1/unstable": "@agentclientprotocol/sdk/unstable",
  v2: "@agentclientprotocol/sdk/experimental/v2",
  "v2/unstable": "@agentclientprotocol/sdk/experimental/v2/unstable",
};

/** A type whose SDK twin is not assignable to it, with the open unions that cause it. */
export interface SdkException {
  readonly name: string;
  /** Defs that declare an open union this type contains (itself included), sorted. */
  readonly openUnions: readonly string[];
}

/** Every def of the surface whose SDK twin is not assignable to it, sorted by name. */
export function sdkExceptions(ir: SchemaIR): SdkException[] {
  const defs = defsByName(ir.defs);
  const children = assignableChildren(defs);
  const exceptions: SdkException[] = [];
  for (const def of ir.defs) {
    const openUnions = reachableDefs(def, defs, children)
      .filter((d) => nodesWithin(d.node, children).some((n) => n.kind === "tagged" && n.other !== undefined))
      .map((d) => d.name);
    if (openUnions.length > 0) exceptions.push({ name: def.name, openUnions: openUnions.sort() });
  }
  return exceptions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The nodes directly inside a node, as an assignment sees them. A union with
 * an `unknown` member (a JSON-RPC envelope's `params: X | ExtRequest`) is
 * `unknown` as a type, so nothing inside it can make an assignment fail.
 */
function assignableChildren(defs: ReadonlyMap<string, Def>): ChildNodes {
  const isUnknown = (node: Node): boolean => {
    switch (node.kind) {
      case "json":
        return true;
      case "ref": {
        // Alias cycles without an object in between are rejected by the recogniser.
        const target = defs.get(node.name)?.node;
        return target !== undefined && isUnknown(target);
      }
      case "nullable":
        return isUnknown(node.inner);
      case "union":
        return node.options.some((o) => isUnknown(o.node));
      default:
        return false;
    }
  };
  return (node) => (node.kind === "union" && isUnknown(node) ? [] : childNodes(node));
}
