/** What a node accepts, as a comparable string. */
import type { Node } from "../ir.js";

/**
 * The node as JSON without docs and without the exported names of variants
 * and options (they embed their type's own name). Property names and
 * referenced type names are kept. Equal strings accept the same values.
 */
export function nodeShape(node: Node): string {
  return JSON.stringify(node, function (this: Record<string, unknown>, key, value: unknown) {
    if (key === "doc") return undefined;
    if (key === "name" && this["kind"] !== "ref" && !("tolerance" in this)) return undefined;
    return typeof value === "bigint" ? value.toString() : value;
  });
}
