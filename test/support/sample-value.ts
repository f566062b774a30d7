/**
 * A small valid value for a `$defs` type, built from the schema: required
 * properties only, the first alternative of a union that yields a value, the
 * smallest string, number and list the keywords allow. Callers confirm with
 * `validate.X` that the value is valid; the connection tests use it to
 * exercise every method without hand-writing a message per method.
 */
type Schema = Record<string, unknown>;

/** A value for `$defs[name]` of `schema`, or `undefined` when none was found. */
export function sampleValue(schema: { $defs: Record<string, Schema> }, name: string): unknown {
  return sample(schema.$defs, { $ref: `#/$defs/${name}` }, 0);
}

function sample(defs: Record<string, Schema>, node: Schema | boolean, depth: number): unknown {
  if (typeof node === "boolean") return node ? {} : undefined;
  if (depth > 30) return undefined;
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0];
  if (typeof node.$ref === "string") {
    const target = defs[node.$ref.replace("#/$defs/", "")];
    return target === undefined ? undefined : sample(defs, target, depth + 1);
  }
  if (Array.isArray(node.allOf)) return merge(node.allOf.map((part) => sample(defs, part as Schema, depth + 1)), node, defs, depth);
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = node[key];
    if (!Array.isArray(options)) continue;
    for (const option of options as Schema[]) {
      const value = sample(defs, combine(withoutUnion(node), option), depth + 1);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== "null") : node.type;
  switch (type) {
    case "object":
      return objectValue(defs, node, depth);
    case "array": {
      const item = sample(defs, (node.items as Schema | undefined) ?? {}, depth + 1);
      return Array.from({ length: Number(node.minItems ?? 0) }, () => item);
    }
    case "string":
      return "x".repeat(Math.max(1, Number(node.minLength ?? 1)));
    case "integer":
    case "number":
      return typeof node.minimum === "number" ? node.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return node.properties === undefined ? {} : objectValue(defs, node, depth);
  }
}

function objectValue(defs: Record<string, Schema>, node: Schema, depth: number): unknown {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const out: Record<string, unknown> = {};
  for (const key of (node.required ?? []) as string[]) {
    const value = sample(defs, properties[key] ?? {}, depth + 1);
    if (value === undefined) return undefined;
    out[key] = value;
  }
  return out;
}

/** A union branch read together with the keywords beside the union (required lists and properties add up). */
function combine(outer: Schema, option: Schema): Schema {
  const required = [...((outer.required ?? []) as string[]), ...((option.required ?? []) as string[])];
  const properties = { ...((outer.properties ?? {}) as Schema), ...((option.properties ?? {}) as Schema) };
  return { ...outer, ...option, required, properties };
}

function withoutUnion(node: Schema): Schema {
  const { anyOf: _a, oneOf: _o, description: _d, ...rest } = node;
  return rest;
}

function merge(parts: unknown[], node: Schema, defs: Record<string, Schema>, depth: number): unknown {
  if (parts.some((p) => p === undefined)) return undefined;
  const own = node.properties === undefined && node.required === undefined ? undefined : objectValue(defs, node, depth);
  const objects = [...parts, ...(own === undefined ? [] : [own])];
  if (objects.every((p) => typeof p === "object" && p !== null && !Array.isArray(p))) return Object.assign({}, ...objects);
  return parts[0];
}
