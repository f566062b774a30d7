/**
 * emitBuilders: IR -> `build.ts` of one surface (S33). One `build.X` per
 * object def and per union variant: the entry takes the required fields in
 * declaration order (and the union-typed part of the value, if any), each
 * optional field has a chainable setter, variant builders set the tag, and
 * custom variants are built from a tag plus a field map. The generated code is
 * a typed entry function over one small generic runtime (runtime/build.ts);
 * setters are typed by a mapped type, so only key lists are emitted per type.
 */
import { ident, isIdentifier, jsDoc, literal, objectLiteralKey } from "../code.js";
import type { Def, Doc, Field, Node, ObjectNode, OtherVariant, SchemaIR, TaggedUnionNode, TaggedVariant, UnionNode } from "../ir.js";
import { runtimeDir } from "./shared.js";

/** What one builder builds. */
interface Shape {
  /** Exported name (the def or variant type name). */
  readonly name: string;
  /** TypeScript type of the built value. */
  readonly target: string;
  readonly doc: Doc;
  /** The tag the builder sets: a constant, or (custom variants) the entry's first argument. */
  readonly tag?: { readonly key: string; readonly value?: string };
  /** Declared fields besides the tag, in declaration order. */
  readonly fields: readonly Field[];
  /** The value has a union-typed part the entry takes whole (named after it). */
  readonly rest?: { readonly name: string; readonly optional: boolean };
}

/** The declared fields and union-typed part of a node a builder covers. */
interface Parts {
  readonly fields: readonly Field[];
  readonly rest?: Shape["rest"];
}

/** The conventions, stated once at the top of every `build.ts`. */
const MODULE_DOC = jsDoc([
  "Builders (S33): `build.X(required fields in declaration order)` returns a builder with one",
  "chainable setter per optional field, named after it; `.build()` returns the value, a fresh",
  "plain JSON object that never holds `undefined`. Setters of three-state fields take a value,",
  "`null` (clear) or `undefined` (omit). Variant builders set the tag; custom variants take a",
  "tag and a field map. A value with a union-typed part takes that part whole as the last argument.",
]);

class BuilderWriter {
  private readonly defs: ReadonlyMap<string, Def>;
  private readonly specs = new Map<string, string>();

  constructor(private readonly ir: SchemaIR) {
    this.defs = new Map(ir.defs.map((d) => [d.name, d]));
  }

  emit(): string {
    const builders = this.ir.defs.flatMap((def) => this.shapesOf(def)).map((shape) => this.builder(shape));
    return [
      MODULE_DOC,
      `import type * as T from "./types.js";`,
      `import * as rt from ${literal(`${runtimeDir(this.ir)}/build.js`)};`,
      `import type { Builder, BuilderSpec, Rest } from ${literal(`${runtimeDir(this.ir)}/build.js`)};`,
      "",
      ...[...this.specs].map(([spec, name]) => `const ${name}: BuilderSpec = ${spec};`),
      "",
      ...builders,
    ].join("\n");
  }

  /** The builders of one def: per IR node kind. Dispatch-only wrappers (`x-docs-ignore`, S32) get none. */
  private shapesOf(def: Def): Shape[] {
    if (def.docsIgnore) return [];
    const node = def.node;
    switch (node.kind) {
      case "object":
        return this.objectShapes(def, node);
      case "tagged":
        return this.taggedShapes(node, `T.${ident(def.name)}`, { fields: [] }, false);
      default:
        return [];
    }
  }

  /** An object def: one builder, or one per variant of a tagged mixin (the def's fields included). */
  private objectShapes(def: Def, node: ObjectNode): Shape[] {
    const target = `T.${ident(def.name)}`;
    if (node.mixin?.kind === "tagged") return this.taggedShapes(node.mixin, target, { fields: withoutTag(node.fields, node.mixin.tag) }, true);
    return [{ name: def.name, target, doc: def.doc, fields: node.fields, ...(node.mixin ? { rest: mixinRest(node.mixin) } : {}) }];
  }

  /**
   * Builders of a tagged union's variants. `common` are fields every variant
   * shares (a mixin's object); `extract` types each as its member of `union`.
   */
  private taggedShapes(node: TaggedUnionNode, union: string, common: Parts, extract: boolean): Shape[] {
    const target = (name: string) => (extract ? `Extract<${union}, T.${ident(name)}>` : `T.${ident(name)}`);
    const shapes: Shape[] = node.variants.map((v) => this.variantShape(node.tag, v, target(v.name), common));
    if (node.other) shapes.push(customShape(node.tag, node.other, target(node.other.name), common));
    if (node.absent) shapes.push({ name: node.absent.name, target: target(node.absent.name), doc: node.absent.doc, fields: common.fields });
    return shapes;
  }

  private variantShape(tag: string, variant: TaggedVariant, target: string, common: Parts): Shape {
    const payload = variant.payload ? this.parts(variant.payload) : { fields: [] };
    const rest = payload.rest ?? common.rest;
    return {
      name: variant.name,
      target,
      doc: variant.doc,
      tag: { key: tag, value: variant.tagValue },
      fields: [...common.fields, ...variant.fields, ...payload.fields],
      ...(rest ? { rest } : {}),
    };
  }

  /** The fields a payload node contributes, and its union-typed part: per IR node kind. */
  private parts(node: Node): Parts {
    switch (node.kind) {
      case "ref": {
        const def = this.defs.get(node.name)!;
        return def.node.kind === "object" ? this.parts(def.node) : { fields: [], rest: { name: lowerCamel(node.name), optional: false } };
      }
      case "object":
        return { fields: node.mixin?.kind === "tagged" ? withoutTag(node.fields, node.mixin.tag) : node.fields, ...(node.mixin ? { rest: mixinRest(node.mixin) } : {}) };
      default:
        return { fields: [], rest: { name: "value", optional: false } };
    }
  }

  /** One exported builder function. */
  private builder(shape: Shape): string {
    const params = paramNames(shape);
    const required = shape.fields.filter((f) => f.required);
    const signature = [
      ...(shape.tag?.value === undefined && shape.tag ? [`${params.tag}: ${shape.target}[${literal(shape.tag.key)}]`] : []),
      ...required.map((f) => `${params.field(f.name)}: ${shape.target}[${literal(f.name)}]`),
      ...(shape.rest ? [`${params.rest}${shape.rest.optional ? "?" : ""}: Rest<${shape.target}, ${keyUnion(shape)}>`] : []),
    ];
    const entries = [
      ...(shape.tag ? [`${objectLiteralKey(shape.tag.key)}: ${shape.tag.value === undefined ? params.tag : literal(shape.tag.value)}`] : []),
      ...required.map((f) => property(f.name, params.field(f.name))),
    ];
    const setters = shape.rest ? this.setterUnion(shape) : "";
    const returns = `Builder<${shape.target}${setters}>`;
    const call = `rt.start(${this.spec(shape)}, ${entries.length ? `{ ${entries.join(", ")} }` : "{}"}${shape.rest ? `, ${params.rest}` : ""})`;
    return `${builderDoc(shape)}export function ${ident(shape.name)}(${signature.join(", ")}): ${returns} {\n  return ${call};\n}\n`;
  }

  /** With a union-typed part the setters are listed explicitly (a union's optional keys cannot be derived). */
  private setterUnion(shape: Shape): string {
    const optional = shape.fields.filter((f) => !f.required);
    return `, ${optional.length ? optional.map((f) => literal(f.name)).join(" | ") : "never"}`;
  }

  /** The name of the (shared) runtime spec constant of a shape. */
  private spec(shape: Shape): string {
    const keys = [...(shape.tag ? [shape.tag.key] : []), ...shape.fields.map((f) => f.name)];
    const setters = shape.fields.filter((f) => !f.required).map((f) => f.name);
    const text = `{ keys: [${keys.map((k) => literal(k)).join(", ")}], setters: [${setters.map((k) => literal(k)).join(", ")}] }`;
    let name = this.specs.get(text);
    if (name === undefined) {
      name = `B${this.specs.size}`;
      this.specs.set(text, name);
    }
    return name;
  }
}

/** A custom variant (S27, S33): built from a tag plus a field map; a stray tag key in the map is dropped. */
function customShape(tag: string, other: OtherVariant, target: string, common: Parts): Shape {
  const required = other.required.length > 0 || common.fields.some((f) => f.required);
  return { name: other.name, target, doc: other.doc, tag: { key: tag }, fields: [], rest: { name: "fields", optional: !required } };
}

/** The module-level values a builder body refers to (the runtime namespace, the `B<n>` specs): no parameter may shadow them. */
const MODULE_VALUES = /^(?:rt|B\d+)$/;

/** Parameter names: the field name when it is an identifier, else a safe variant; never clashing. */
function paramNames(shape: Shape): { tag: string; rest: string; field: (name: string) => string } {
  const used = new Set<string>();
  const claim = (wanted: string): string => {
    let name = isIdentifier(wanted) || isIdentifier(`${wanted}_`) ? wanted : "value";
    while (used.has(name) || !isIdentifier(name) || MODULE_VALUES.test(name)) name += "_";
    used.add(name);
    return name;
  };
  const tag = shape.tag?.value === undefined ? claim("tag") : "";
  const fields = new Map(shape.fields.filter((f) => f.required).map((f) => [f.name, claim(f.name)]));
  const rest = shape.rest ? claim(shape.rest.name) : "";
  return { tag, rest, field: (name) => fields.get(name)! };
}

/** `key: param`, or the shorthand when they are the same identifier. */
function property(key: string, param: string): string {
  return key === param && key !== "__proto__" ? key : `${objectLiteralKey(key)}: ${param}`;
}

/** The keys a builder sets itself, as a union of literals (`never` when none). */
function keyUnion(shape: Shape): string {
  const keys = [...(shape.tag ? [shape.tag.key] : []), ...shape.fields.map((f) => f.name)];
  return keys.length ? keys.map((k) => literal(k)).join(" | ") : "never";
}

function withoutTag(fields: readonly Field[], tag: string): Field[] {
  return fields.filter((f) => f.name !== tag);
}

/** The entry parameter holding a mixin: the tagged union's variant (optional when the tag may be absent), or the untagged alternative. */
function mixinRest(mixin: TaggedUnionNode | UnionNode): NonNullable<Shape["rest"]> {
  return mixin.kind === "tagged" ? { name: "variant", optional: mixin.absent !== undefined } : { name: "alternative", optional: false };
}

function lowerCamel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** A one-line doc; the conventions are documented once, on the runtime `Builder` type and the module. */
function builderDoc(shape: Shape): string {
  const tag = shape.tag?.value !== undefined ? ` with \`${shape.tag.key}: ${JSON.stringify(shape.tag.value)}\`` : shape.tag ? " from a custom tag and its fields" : "";
  return jsDoc([`Builder of \`${shape.name}\`${tag} (S33).`, ...(shape.doc.experimental ? ["@experimental"] : [])]);
}

/** Emits the `build.ts` module body of one surface. */
export function emitBuilders(ir: SchemaIR): string {
  return new BuilderWriter(ir).emit();
}
