/**
 * A full sample value of a `$defs` type, made from the IR: every optional field
 * present, the first variant of each union, raw JSON with a `__proto__` key.
 * Tests check each sample against ajv before use, so a sample that is not a
 * valid instance fails the test instead of proving nothing.
 */
import type { Node, SchemaIR } from "../../generator/ir.js";

/** Raw JSON as JSON.parse makes it: `__proto__` is an own key (S34). */
const RAW = '{"k":[1,"two",{"__proto__":{"x":null}}]}';

export function sampleOf(ir: SchemaIR, type: string): unknown {
  const defs = new Map(ir.defs.map((d) => [d.name, d.node]));
  const sample = (node: Node): unknown => {
    switch (node.kind) {
      case "ref":
        return sample(defs.get(node.name)!);
      case "json":
        return JSON.parse(RAW);
      case "null":
        return null;
      case "boolean":
        return true;
      case "string":
        return "s".repeat(Math.max(1, node.minLength ?? 1));
      case "integer":
        return Number(node.minimum !== undefined && node.minimum > 1n ? node.minimum : node.maximum !== undefined && node.maximum < 1n ? node.maximum : 1n);
      case "number":
        return node.minimum ?? 0.5;
      case "const":
        return node.value;
      case "enum":
        return node.members[0]?.value ?? (node.base === "string" ? "custom" : 1);
      case "nullable":
        return sample(node.inner);
      case "array":
        return Array.from({ length: Math.max(1, node.minItems ?? 1) }, () => sample(node.items));
      case "record":
        return { key: sample(node.values) };
      case "object":
        return { ...Object.fromEntries(node.fields.map((f) => [f.name, sample(f.node)])), ...(node.mixin ? (sample(node.mixin) as object) : {}) };
      case "tagged": {
        const variant = node.variants[0];
        if (!variant) throw new Error(`sample: tagged union without known variants in ${type}`);
        const fields = Object.fromEntries(variant.fields.map((f) => [f.name, sample(f.node)]));
        return { [node.tag]: variant.tagValue, ...fields, ...(variant.payload ? (sample(variant.payload) as object) : {}) };
      }
      case "union":
        return sample(node.options[0]!.node);
    }
  };
  return sample(defs.get(type)!);
}
