/**
 * Stage 2 of the pipeline: map every ACP schema idiom to an IR node. Anything
 * not recognised is a `SchemaError` naming its file and JSON pointer; nothing
 * is degraded silently.
 */
import {
  INT_RANGES,
  withoutNull,
  type AbsentVariant,
  type Def,
  type Doc,
  type Field,
  type IntFormat,
  type Node,
  type OtherVariant,
  type SchemaIR,
  type Surface,
  type TaggedUnionNode,
  type TaggedVariant,
  type Tolerance,
  type UnionNode,
  type UnionOption,
} from "./ir.js";
import { isPlainObject, pointerSegment, SchemaError, type LoadedSchema } from "./load.js";
import { typeNameFor, variantTypeName, type VariantNames } from "./naming.js";

type Schema = Record<string, unknown>;

interface Context {
  readonly file: string;
  readonly defs: ReadonlyMap<string, unknown>;
  readonly names: VariantNames;
  /** The `$defs` key being recognised; the naming table is keyed by it. */
  readonly defName: string;
  /** Its exported TypeScript name; variant type names are prefixed with it. */
  readonly typeName: string;
}

/** Keywords that only annotate and never change what is accepted. */
const ANNOTATIONS = new Set(["description", "title", "default", "$schema"]);
const DEF_KEYWORDS = new Set(["x-method", "x-side", "x-docs-ignore"]);
const FIELD_KEYWORDS = new Set([
  "x-deserialize-default-on-error",
  "x-deserialize-skip-invalid-items",
  "x-deserialize-default-on-null",
]);

const NUMBER_FORMATS = new Set(["double", "float"]);
const STRING_FORMATS = new Set(["uri", "date-time", "regex"]);

/** Recognises every `$defs` entry of a loaded schema. */
export function recogniseSchema(
  schema: LoadedSchema,
  surface: Surface,
  file: string,
  names: VariantNames,
): SchemaIR {
  const defs: Def[] = [];
  for (const [name, value] of schema.defs) {
    const pointer = `/$defs/${pointerSegment(name)}`;
    const ctx: Context = { file: schema.file, defs: schema.defs, names, defName: name, typeName: typeNameFor(name) };
    defs.push(recogniseDef(value, name, pointer, ctx));
  }
  return { surface, file, sha256: schema.sha256, defs };
}

function recogniseDef(value: unknown, name: string, pointer: string, ctx: Context): Def {
  const s = asSchema(value, pointer, ctx);
  const method = s["x-method"];
  const side = s["x-side"];
  if ((method === undefined) !== (side === undefined)) fail(ctx, pointer, "`x-method` and `x-side` must appear together");
  if (method !== undefined && (typeof method !== "string" || typeof side !== "string")) {
    fail(ctx, pointer, "`x-method` and `x-side` must be strings");
  }
  const docsIgnore = s["x-docs-ignore"];
  if (docsIgnore !== undefined && docsIgnore !== true) fail(ctx, `${pointer}/x-docs-ignore`, "`x-docs-ignore` must be true");
  const body = withoutKeys(s, DEF_KEYWORDS);
  const node = recognise(body, pointer, ctx);
  return {
    name: ctx.typeName,
    ...(ctx.typeName !== name ? { schemaName: name } : {}),
    doc: docOf(s),
    pointer,
    node,
    docsIgnore: docsIgnore === true,
    ...(typeof method === "string" ? { method: { method, side: side as string } } : {}),
  };
}

/** Maps one schema node to an IR node. */
function recognise(s: Schema, ptr: string, ctx: Context): Node {
  const keys = keywordsOf(s);
  for (const key of keys) {
    if (FIELD_KEYWORDS.has(key)) fail(ctx, ptr, `\`${key}\` is only understood on an object property`);
    if (DEF_KEYWORDS.has(key)) fail(ctx, ptr, `\`${key}\` is only understood on a \`$defs\` entry`);
  }
  if (keys.length === 0) return { kind: "json" };
  if (keys.includes("$ref")) {
    only(s, ["$ref"], ptr, ctx);
    return refNode(s["$ref"], `${ptr}/$ref`, ctx);
  }
  if (keys.length === 1 && keys[0] === "allOf") {
    const parts = s["allOf"];
    if (!Array.isArray(parts) || parts.length !== 1) fail(ctx, `${ptr}/allOf`, "only a single-element `allOf` is understood");
    return recognise(asSchema(parts[0], `${ptr}/allOf/0`, ctx), `${ptr}/allOf/0`, ctx);
  }
  const type = s["type"];
  if (type === undefined) {
    if (keys.includes("const")) return constNode(s, ptr, ctx);
    const union = unionKeyword(s, ptr, ctx);
    if (union && keys.every((k) => k === union || k === "discriminator")) {
      return recogniseUnion(s[union] as unknown[], union === "oneOf", `${ptr}/${union}`, ctx);
    }
    fail(ctx, ptr, `unrecognised schema construct with keywords ${keys.join(", ")}`);
  }
  if (Array.isArray(type)) {
    if (type.length !== 2 || type[1] !== "null" || typeof type[0] !== "string" || type[0] === "null") {
      fail(ctx, `${ptr}/type`, `unrecognised type list ${JSON.stringify(type)}; only [T, "null"] is understood`);
    }
    return { kind: "nullable", inner: recognise({ ...s, type: type[0] }, ptr, ctx) };
  }
  switch (type) {
    case "object":
      return recogniseObject(s, ptr, ctx);
    case "array": {
      only(s, ["type", "items", "minItems"], ptr, ctx);
      const items = asSchema(s["items"], `${ptr}/items`, ctx);
      return {
        kind: "array",
        items: recognise(items, `${ptr}/items`, ctx),
        ...optionalNumber(s, "minItems", ptr, ctx),
      };
    }
    case "string":
      if (keys.includes("const")) return constNode(s, ptr, ctx);
      if (keys.includes("enum")) return enumNode(s, ptr, ctx);
      only(s, ["type", "minLength", "format", "contentEncoding", "pattern"], ptr, ctx);
      if (s["format"] !== undefined && !STRING_FORMATS.has(s["format"] as string)) {
        fail(ctx, `${ptr}/format`, `unknown string format ${JSON.stringify(s["format"])}`);
      }
      return {
        kind: "string",
        ...optionalNumber(s, "minLength", ptr, ctx),
        ...optionalPattern(s, ptr, ctx),
        ...(typeof s["format"] === "string" ? { format: s["format"] } : {}),
        ...(typeof s["contentEncoding"] === "string" ? { contentEncoding: s["contentEncoding"] } : {}),
      };
    case "integer":
      if (keys.includes("const")) return constNode(s, ptr, ctx);
      only(s, ["type", "format", "minimum", "maximum"], ptr, ctx);
      return integerNode(s, ptr, ctx);
    case "number":
      only(s, ["type", "format", "minimum", "maximum"], ptr, ctx);
      if (s["format"] !== undefined && !NUMBER_FORMATS.has(s["format"] as string)) {
        fail(ctx, `${ptr}/format`, `unknown number format ${JSON.stringify(s["format"])}`);
      }
      return {
        kind: "number",
        ...(typeof s["format"] === "string" ? { format: s["format"] } : {}),
        ...optionalNumber(s, "minimum", ptr, ctx),
        ...optionalNumber(s, "maximum", ptr, ctx),
      };
    case "boolean":
      only(s, ["type"], ptr, ctx);
      return { kind: "boolean" };
    case "null":
      only(s, ["type"], ptr, ctx);
      return { kind: "null" };
    default:
      return fail(ctx, `${ptr}/type`, `unknown type ${JSON.stringify(type)}`);
  }
}

function recogniseObject(s: Schema, ptr: string, ctx: Context): Node {
  only(s, ["type", "properties", "required", "additionalProperties", "anyOf", "oneOf", "discriminator"], ptr, ctx);
  const extra = s["additionalProperties"];
  const properties = s["properties"];
  if (extra === false) fail(ctx, `${ptr}/additionalProperties`, "`additionalProperties: false` is not understood");
  if (properties === undefined && s["required"] === undefined && unionKeyword(s, ptr, ctx) === undefined) {
    if (extra === undefined || extra === true) return { kind: "record", values: { kind: "json" } };
    return { kind: "record", values: recognise(asSchema(extra, `${ptr}/additionalProperties`, ctx), `${ptr}/additionalProperties`, ctx) };
  }
  if (extra !== undefined && extra !== true) {
    fail(ctx, `${ptr}/additionalProperties`, "a schema for additional properties next to declared properties is not understood");
  }
  const required = requiredList(s, ptr, ctx);
  const fields = fieldsOf(s, required, ptr, ctx);
  for (const name of required) {
    if (!fields.some((f) => f.name === name)) fail(ctx, `${ptr}/required`, `required property "${name}" is not declared`);
  }
  const union = unionKeyword(s, ptr, ctx);
  let mixin: TaggedUnionNode | UnionNode | undefined;
  if (union) {
    const node = recogniseUnion(s[union] as unknown[], union === "oneOf", `${ptr}/${union}`, ctx);
    if (node.kind !== "tagged" && node.kind !== "union") fail(ctx, `${ptr}/${union}`, "an object's `anyOf`/`oneOf` must be a union of objects");
    mixin = node;
  }
  return { kind: "object", fields, keepsUnknown: extra === true, ...(mixin ? { mixin } : {}) };
}

function fieldsOf(s: Schema, required: readonly string[], ptr: string, ctx: Context): Field[] {
  const properties = s["properties"] ?? {};
  if (!isPlainObject(properties)) fail(ctx, `${ptr}/properties`, "`properties` must be an object");
  return Object.entries(properties).map(([name, value]) => {
    const fieldPtr = `${ptr}/properties/${pointerSegment(name)}`;
    const fs = asSchema(value, fieldPtr, ctx);
    const tolerance: Tolerance = {
      defaultOnError: flag(fs, "x-deserialize-default-on-error", fieldPtr, ctx),
      skipInvalidItems: flag(fs, "x-deserialize-skip-invalid-items", fieldPtr, ctx),
      defaultOnNull: flag(fs, "x-deserialize-default-on-null", fieldPtr, ctx),
    };
    const node = recognise(withoutKeys(fs, FIELD_KEYWORDS), fieldPtr, ctx);
    if (tolerance.skipInvalidItems && withoutNull(node).kind !== "array") {
      fail(ctx, fieldPtr, "`x-deserialize-skip-invalid-items` on a property that is not an array");
    }
    return {
      name,
      doc: docOf(fs),
      node,
      required: required.includes(name),
      tolerance,
      ...("default" in fs ? { default: fs["default"] } : {}),
    };
  });
}

/** `anyOf`/`oneOf`: nullable, enum, tagged union or plain union. */
function recogniseUnion(branches: unknown[], exclusive: boolean, ptr: string, ctx: Context): Node {
  const schemas = branches.map((b, i) => asSchema(b, `${ptr}/${i}`, ctx));
  if (schemas.length === 0) fail(ctx, ptr, "an empty union is not understood");
  const nullIndex = schemas.findIndex((b) => keywordsOf(b).length === 1 && b["type"] === "null");
  if (!exclusive && schemas.length >= 2 && nullIndex !== -1 && schemas[nullIndex]!["title"] === undefined) {
    // `anyOf: [X, ..., {type: null}]`: a nullable X (pointers of the rest keep their indices).
    const rest = branches.filter((_, i) => i !== nullIndex);
    if (rest.length === 1) return { kind: "nullable", inner: recognise(schemas[1 - nullIndex]!, `${ptr}/${1 - nullIndex}`, ctx) };
    if (nullIndex !== branches.length - 1) fail(ctx, `${ptr}/${nullIndex}`, "a `null` branch is only understood last");
    return { kind: "nullable", inner: recogniseUnion(rest, false, ptr, ctx) };
  }
  const enumNode = asEnum(schemas, ptr, ctx);
  if (enumNode) return enumNode;
  const tag = tagOf(schemas);
  if (tag !== undefined) return taggedUnion(schemas, tag, exclusive, ptr, ctx);
  return {
    kind: "union",
    exclusive,
    options: schemas.map((b, i) => {
      const title = b["title"];
      if (typeof title !== "string") fail(ctx, `${ptr}/${i}`, "an untagged union option needs a `title` to be named");
      return { name: variantTypeName(ctx.typeName, title), doc: docOf(b), node: recognise(b, `${ptr}/${i}`, ctx) };
    }),
  };
}

/** A union of constants, optionally with one catch-all branch of the same base type (S28). */
function asEnum(schemas: Schema[], ptr: string, ctx: Context): Node | undefined {
  const consts = schemas.filter((b) => "const" in b);
  const rest = schemas.filter((b) => !("const" in b));
  if (consts.length === 0 || rest.length > 1) return undefined;
  const base = consts[0]!["type"];
  if (base !== "string" && base !== "integer") return undefined;
  if (!consts.every((b) => b["type"] === base && typeof b["const"] === (base === "string" ? "string" : "number"))) return undefined;
  const catchAll = rest[0];
  if (catchAll && (catchAll["type"] !== base || keywordsOf(catchAll).some((k) => k !== "type" && k !== "format"))) return undefined;
  const format = consts[0]!["format"];
  for (const [i, b] of schemas.entries()) {
    only(b, ["type", "const", "format"], `${ptr}/${i}`, ctx);
    if (b["format"] !== format) fail(ctx, `${ptr}/${i}/format`, "enum members disagree on `format`");
  }
  const intFormat = format === undefined ? undefined : intFormatOf(format, `${ptr}/0/format`, ctx);
  if (base === "string" && format !== undefined) fail(ctx, `${ptr}/0/format`, "a format on a string enum is not understood");
  return {
    kind: "enum",
    base,
    members: consts.map((b) => ({
      value: b["const"] as string | number,
      doc: docOf(b),
      ...(typeof b["title"] === "string" ? { title: b["title"] } : {}),
    })),
    ...(catchAll ? { open: { doc: docOf(catchAll), ...(intFormat ? { format: intFormat } : {}) } } : {}),
  };
}

/** The tag property: a required string constant that the union's first tagged branch declares. */
function tagOf(schemas: Schema[]): string | undefined {
  for (const b of schemas) {
    const properties = b["properties"];
    if (b["type"] !== "object" || !isPlainObject(properties) || !Array.isArray(b["required"])) continue;
    const tag = Object.keys(properties).find((name) => {
      const p = properties[name];
      return isPlainObject(p) && p["type"] === "string" && typeof p["const"] === "string" && (b["required"] as unknown[]).includes(name);
    });
    if (tag !== undefined) return tag;
  }
  return undefined;
}

/** `{type: object, properties: {tag: {type: string, const}}, required: [tag]}` (one excluded tag). */
function isTaggedWrapper(s: Schema): boolean {
  const properties = s["properties"];
  if (s["type"] !== "object" || !isPlainObject(properties)) return false;
  const names = Object.keys(properties);
  if (names.length !== 1) return false;
  const tagSchema = properties[names[0]!];
  return isPlainObject(tagSchema) && tagSchema["type"] === "string" && typeof tagSchema["const"] === "string";
}

function taggedUnion(schemas: Schema[], tag: string, exclusive: boolean, ptr: string, ctx: Context): TaggedUnionNode {
  const variants: TaggedVariant[] = [];
  let other: OtherVariant | undefined;
  let absent: AbsentVariant | undefined;
  const untagged: UnionOption[] = [];
  for (const [i, b] of schemas.entries()) {
    const bptr = `${ptr}/${i}`;
    const properties = b["properties"];
    const tagSchema = isPlainObject(properties) ? properties[tag] : undefined;
    if (tagSchema === undefined) {
      untagged.push({ name: titledName(b, bptr, ctx), doc: docOf(b), node: recognise(b, bptr, ctx) });
    } else if (!isPlainObject(tagSchema)) {
      fail(ctx, `${bptr}/properties/${pointerSegment(tag)}`, `the tag property "${tag}" must be a schema`);
    } else if (typeof tagSchema["const"] === "string") {
      variants.push(taggedVariant(b, tag, bptr, ctx));
    } else if (tagSchema["type"] === "string") {
      if (other) fail(ctx, bptr, "a union with two open branches is not understood");
      other = otherVariant(b, tag, bptr, ctx);
    } else if (tagSchema["type"] === "null") {
      if (absent) fail(ctx, bptr, "a union with two absent-tag branches is not understood");
      only(b, ["type", "properties"], bptr, ctx);
      absent = { name: titledName(b, bptr, ctx), doc: docOf(b) };
    } else {
      fail(ctx, `${bptr}/properties/${pointerSegment(tag)}`, `unrecognised tag schema for "${tag}"`);
    }
  }
  const seen = new Set<string>();
  for (const [i, v] of variants.entries()) {
    if (seen.has(v.tagValue)) fail(ctx, `${ptr}/${i}`, `duplicate tag "${v.tagValue}" in one union`);
    seen.add(v.tagValue);
  }
  if (other) checkExcludedTags(schemas, tag, seen, ptr, ctx);
  return {
    kind: "tagged",
    tag,
    variants,
    exclusive,
    ...(other ? { other } : {}),
    ...(absent ? { absent } : {}),
    ...(untagged.length ? { untagged } : {}),
  };
}

function taggedVariant(b: Schema, tag: string, bptr: string, ctx: Context): TaggedVariant {
  only(b, ["type", "properties", "required", "allOf"], bptr, ctx);
  const tagPtr = `${bptr}/properties/${pointerSegment(tag)}`;
  const tagSchema = (b["properties"] as Schema)[tag] as Schema;
  only(tagSchema, ["type", "const"], tagPtr, ctx);
  const tagValue = tagSchema["const"] as string;
  const required = requiredList(b, bptr, ctx);
  if (!required.includes(tag)) fail(ctx, `${bptr}/required`, `a tagged variant must require its tag "${tag}"`);
  const fields = fieldsBesidesTag(b, tag, required, bptr, ctx);
  for (const name of required) {
    if (name !== tag && !fields.some((f) => f.name === name)) fail(ctx, `${bptr}/required`, `required property "${name}" is not declared`);
  }
  const allOf = b["allOf"];
  let payload: Node | undefined;
  if (allOf !== undefined) {
    if (!Array.isArray(allOf) || allOf.length !== 1) fail(ctx, `${bptr}/allOf`, "a tagged variant's `allOf` must hold exactly one payload");
    payload = recognise(asSchema(allOf[0], `${bptr}/allOf/0`, ctx), `${bptr}/allOf/0`, ctx);
  }
  const title = b["title"];
  const name =
    typeof title === "string"
      ? variantTypeName(ctx.typeName, title)
      : ctx.names.lookup(ctx.defName, tagValue, () => fail(ctx, bptr, ctx.names.missingMessage(ctx.defName, tagValue)));
  return { name, tagValue, doc: docOf(b), fields, ...(payload ? { payload } : {}) };
}

/** The properties a union branch declares next to its tag. */
function fieldsBesidesTag(b: Schema, tag: string, required: readonly string[], bptr: string, ctx: Context): Field[] {
  const declared = { ...(b["properties"] as Schema) };
  delete declared[tag];
  return fieldsOf({ properties: declared }, required, bptr, ctx);
}

function otherVariant(b: Schema, tag: string, bptr: string, ctx: Context): OtherVariant {
  only(b, ["type", "properties", "required", "not", "additionalProperties", "unevaluatedProperties", "oneOf", "anyOf"], bptr, ctx);
  const keepsUnknown = b["additionalProperties"] === true || b["unevaluatedProperties"] === true;
  if (!keepsUnknown) fail(ctx, bptr, "an open union branch must keep unknown properties (`additionalProperties: true`)");
  if (b["not"] === undefined) fail(ctx, bptr, "an open union branch must exclude the known tags with `not`");
  const required = requiredList(b, bptr, ctx);
  const fields = fieldsBesidesTag(b, tag, required, bptr, ctx);
  const union = unionKeyword(b, bptr, ctx);
  const mixin = union ? recogniseUnion(b[union] as unknown[], union === "oneOf", `${bptr}/${union}`, ctx) : undefined;
  if (mixin && mixin.kind !== "union") fail(ctx, `${bptr}/${union}`, "an open branch's own union must be untagged");
  return {
    name: titledName(b, bptr, ctx),
    doc: docOf(b),
    fields,
    required: required.filter((r) => r !== tag),
    ...(mixin && mixin.kind === "union" ? { mixin } : {}),
  };
}

/** The open branch's `not: {anyOf: [...]}` must list exactly the known tags. */
function checkExcludedTags(schemas: Schema[], tag: string, known: ReadonlySet<string>, ptr: string, ctx: Context): void {
  const index = schemas.findIndex((b) => {
    const t = (b["properties"] as Schema | undefined)?.[tag];
    return isPlainObject(t) && t["type"] === "string" && t["const"] === undefined;
  });
  const notPtr = `${ptr}/${index}/not`;
  const not = schemas[index]!["not"];
  if (!isPlainObject(not) || !Array.isArray(not["anyOf"])) fail(ctx, notPtr, "expected `not: {anyOf: [...]}` listing the known tags");
  const excluded = new Set<string>();
  for (const [i, e] of (not["anyOf"] as unknown[]).entries()) {
    const es = asSchema(e, `${notPtr}/anyOf/${i}`, ctx);
    if (!isTaggedWrapper(es)) fail(ctx, `${notPtr}/anyOf/${i}`, "expected a tag constant");
    excluded.add(((es["properties"] as Schema)[tag] as Schema)["const"] as string);
  }
  const missing = [...known].filter((t) => !excluded.has(t));
  const extra = [...excluded].filter((t) => !known.has(t));
  if (missing.length || extra.length) {
    fail(ctx, notPtr, `the open branch excludes [${[...excluded].join(", ")}] but the known tags are [${[...known].join(", ")}]`);
  }
}

function titledName(b: Schema, bptr: string, ctx: Context): string {
  const title = b["title"];
  if (typeof title !== "string") fail(ctx, bptr, "this union branch needs a `title` to be named");
  return variantTypeName(ctx.typeName, title);
}

function refNode(ref: unknown, ptr: string, ctx: Context): Node {
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) fail(ctx, ptr, `only local "#/$defs/..." references are understood, got ${JSON.stringify(ref)}`);
  const name = ref.slice("#/$defs/".length).replaceAll("~1", "/").replaceAll("~0", "~");
  if (!ctx.defs.has(name)) fail(ctx, ptr, `$ref to a missing def "${name}"`);
  return { kind: "ref", name: typeNameFor(name) };
}

function constNode(s: Schema, ptr: string, ctx: Context): Node {
  only(s, ["type", "const", "format"], ptr, ctx);
  const value = s["const"];
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    fail(ctx, `${ptr}/const`, "only string, number and boolean constants are understood");
  }
  return { kind: "const", value };
}

function enumNode(s: Schema, ptr: string, ctx: Context): Node {
  only(s, ["type", "enum"], ptr, ctx);
  const values = s["enum"];
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === "string")) {
    fail(ctx, `${ptr}/enum`, "only non-empty string enums are understood");
  }
  if (values.length === 1) return { kind: "const", value: values[0] as string };
  return { kind: "enum", base: "string", members: values.map((value: string) => ({ value, doc: { experimental: false } })) };
}

function integerNode(s: Schema, ptr: string, ctx: Context): Node {
  const format = s["format"] === undefined ? undefined : intFormatOf(s["format"], `${ptr}/format`, ctx);
  const [formatMin, formatMax] = format ? INT_RANGES[format] : [undefined, undefined];
  const own = (key: "minimum" | "maximum"): bigint | undefined => {
    const v = s[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v)) fail(ctx, `${ptr}/${key}`, `\`${key}\` on an integer must be an integer`);
    return BigInt(v);
  };
  const pick = (a: bigint | undefined, b: bigint | undefined, larger: boolean) =>
    a === undefined ? b : b === undefined ? a : larger ? (a > b ? a : b) : a < b ? a : b;
  const minimum = pick(own("minimum"), formatMin, true);
  const maximum = pick(own("maximum"), formatMax, false);
  return {
    kind: "integer",
    ...(format ? { format } : {}),
    ...(minimum !== undefined ? { minimum } : {}),
    ...(maximum !== undefined ? { maximum } : {}),
  };
}

function intFormatOf(format: unknown, ptr: string, ctx: Context): IntFormat {
  if (typeof format !== "string" || !(format in INT_RANGES)) fail(ctx, ptr, `unknown integer format ${JSON.stringify(format)}`);
  return format as IntFormat;
}

function unionKeyword(s: Schema, ptr: string, ctx: Context): "anyOf" | "oneOf" | undefined {
  const hasAny = s["anyOf"] !== undefined;
  const hasOne = s["oneOf"] !== undefined;
  if (hasAny && hasOne) fail(ctx, ptr, "`anyOf` and `oneOf` on one schema are not understood");
  const key = hasAny ? "anyOf" : hasOne ? "oneOf" : undefined;
  if (key && !Array.isArray(s[key])) fail(ctx, `${ptr}/${key}`, `\`${key}\` must be an array`);
  if (s["discriminator"] !== undefined && key !== "oneOf") fail(ctx, `${ptr}/discriminator`, "`discriminator` is only understood next to `oneOf`");
  return key;
}

function requiredList(s: Schema, ptr: string, ctx: Context): string[] {
  const required = s["required"] ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) fail(ctx, `${ptr}/required`, "`required` must be an array of strings");
  return required as string[];
}

function flag(s: Schema, key: string, ptr: string, ctx: Context): boolean {
  const v = s[key];
  if (v === undefined) return false;
  if (v !== true) fail(ctx, `${ptr}/${key}`, `\`${key}\` must be true when present`);
  return true;
}

function optionalNumber<K extends string>(s: Schema, key: K, ptr: string, ctx: Context): { [P in K]?: number } {
  const v = s[key];
  if (v === undefined) return {};
  if (typeof v !== "number") fail(ctx, `${ptr}/${key}`, `\`${key}\` must be a number`);
  return { [key]: v } as { [P in K]?: number };
}

/** `pattern` (2.0.0's `Cost.currency`): must compile as an ECMA-262 regular expression. */
function optionalPattern(s: Schema, ptr: string, ctx: Context): { pattern?: string } {
  const pattern = s["pattern"];
  if (pattern === undefined) return {};
  if (typeof pattern !== "string") fail(ctx, `${ptr}/pattern`, "`pattern` must be a string");
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    fail(ctx, `${ptr}/pattern`, `\`pattern\` is not an ECMA-262 regular expression: ${(error as Error).message}`);
  }
  return { pattern };
}

function docOf(s: Schema): Doc {
  const text = s["description"];
  if (typeof text !== "string") return { experimental: false };
  return { text, experimental: text.includes("**UNSTABLE**") };
}

/** Rejects keywords outside `allowed` (annotations aside). */
function only(s: Schema, allowed: readonly string[], ptr: string, ctx: Context): void {
  for (const key of keywordsOf(s)) {
    if (!allowed.includes(key)) fail(ctx, `${ptr}/${pointerSegment(key)}`, `unrecognised keyword \`${key}\` here`);
  }
}

function keywordsOf(s: Schema): string[] {
  return Object.keys(s).filter((k) => !ANNOTATIONS.has(k));
}

function withoutKeys(s: Schema, keys: ReadonlySet<string>): Schema {
  return Object.fromEntries(Object.entries(s).filter(([k]) => !keys.has(k)));
}

function asSchema(value: unknown, ptr: string, ctx: Context): Schema {
  if (!isPlainObject(value)) fail(ctx, ptr, "expected a schema object");
  return value;
}

function fail(ctx: Context, pointer: string, message: string): never {
  throw new SchemaError(ctx.file, pointer, message);
}

