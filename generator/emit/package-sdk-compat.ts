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
import { childNodes, defsByName, type Def, type Node, type SchemaIR, type Surface } from "../ir.js";

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
  const graph = new DefGraph(ir.defs);
  const exceptions: SdkException[] = [];
  for (const def of ir.defs) {
    const openUnions = graph.reachable(def).filter((d) => graph.declaresOpenUnion(d.node)).map((d) => d.name);
    if (openUnions.length > 0) exceptions.push({ name: def.name, openUnions: openUnions.sort() });
  }
  return exceptions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The defs of one surface and the references between them, as the types see them. */
class DefGraph {
  private readonly defs: ReadonlyMap<string, Def>;

  constructor(defs: readonly Def[]) {
    this.defs = defsByName(defs);
  }

  /** `def` and every def it refers to, directly or through other defs. */
  reachable(def: Def): Def[] {
    const seen = new Map<string, Def>([[def.name, def]]);
    const queue = [def];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const name of this.refsOf(next.node)) {
        const target = this.defs.get(name);
        if (target && !seen.has(name)) {
          seen.set(name, target);
          queue.push(target);
        }
      }
    }
    return [...seen.values()];
  }

  /** True when the node itself (not through a `ref`) holds an open tagged union. */
  declaresOpenUnion(node: Node): boolean {
    return (node.kind === "tagged" && node.other !== undefined) || this.children(node).some((n) => this.declaresOpenUnion(n));
  }

  /** Names of the defs a node refers to without going through another def. */
  private refsOf(node: Node): string[] {
    return node.kind === "ref" ? [node.name] : this.children(node).flatMap((n) => this.refsOf(n));
  }

  /**
   * The nodes directly inside a node. A union with an `unknown` member (a
   * JSON-RPC envelope's `params: X | ExtRequest`) is `unknown` as a type, so
   * nothing inside it can make an assignment fail.
   */
  private children(node: Node): Node[] {
    return node.kind === "union" && this.isUnknown(node) ? [] : childNodes(node);
  }


  /** True when the node's type is `unknown`: any JSON, or a union or alias that includes it. */
  private isUnknown(node: Node): boolean {
    switch (node.kind) {
      case "json":
        return true;
      case "ref": {
        // Alias cycles without an object in between are rejected by the recogniser.
        const target = this.defs.get(node.name)?.node;
        return target !== undefined && this.isUnknown(target);
      }
      case "nullable":
        return this.isUnknown(node.inner);
      case "union":
        return node.options.some((o) => this.isUnknown(o.node));
      default:
        return false;
    }
  }
}
