/**
 * emitBuilders: IR -> `build.ts` of one surface (S33). One `build.X` per
 * object def and per union variant: the entry takes the required fields in
 * declaration order (and the union-typed part of the value, if any), each
 * optional field has a chainable setter, variant builders set the tag, and
 * custom variants are built from a tag plus a field map. The generated code is
 * a typed entry function over one small generic runtime (runtime/build.ts);
 * setters are typed by a mapped type, so only key lists are emitted per type.
 */
import type { SurfaceModel } from "../model.js";
import { block, code, doc, GeneratedFile, isIdentifier, join, lines, literalKey, name, type Code } from "../code.js";
import { ownFields, type Def, type Doc, type Field, type Node, type ObjectNode, type OtherVariant, type SchemaIR, type TaggedUnionNode, type TaggedVariant, type UnionNode } from "../ir.js";
import { runtimeDir } from "./shared.js";

/** What one builder builds. */
interface Shape {
  /** Exported name (the def or variant type name). */
  readonly name: string;
  /** TypeScript type of the built value. */
  readonly target: Code;
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
const MODULE_DOC = doc([
  "Builders (S33): `build.X(required fields in declaration order)` returns a builder with one",
  "chainable setter per optional field, named after it; `.build()` returns the value, a fresh",
  "plain JSON object that never holds `undefined`. Setters of three-state fields take a value,",
  "`null` (clear) or `undefined` (omit). Variant builders set the tag; custom variants take a",
  "tag and a field map. A value with a union-typed part takes that part whole as the last argument.",
]);

/** The runtime names a builder's code refers to, registered on its file. */
interface Names {
  readonly rt: Code;
  readonly Builder: Code;
  readonly BuilderSpec: Code;
  readonly Rest: Code;
}

class BuilderWriter {
  private readonly ir: SchemaIR;
  private readonly defs: ReadonlyMap<string, Def>;

  constructor(model: SurfaceModel) {
    this.ir = model.ir;
    this.defs = model.defsByName;
  }

  emit(): string {
    const f = new GeneratedFile(MODULE_DOC);
    const runtime = `${runtimeDir(this.ir)}/build.js`;
    f.importAll("./types.js", "T", { type: true });
    const names: Names = {
      rt: f.importAll(runtime, "rt"),
      Builder: f.import(runtime, "Builder", { type: true }),
      BuilderSpec: f.import(runtime, "BuilderSpec", { type: true }),
      Rest: f.import(runtime, "Rest", { type: true }),
    };
    const shapes = this.ir.defs.flatMap((def) => this.shapesOf(def));
    const specs = specConstants(shapes);
    f.print(lines(specs.declarations.map((d) => code`const ${d.constant}: ${names.BuilderSpec} = ${d.literal};`)));
    f.print(...shapes.map((shape) => builder(shape, specs, names)));
    return f.toString();
  }

  /** The builders of one def: per IR node kind. Dispatch-only wrappers (`x-docs-ignore`, S32) get none. */
  private shapesOf(def: Def): Shape[] {
    if (def.docsIgnore) return [];
    const node = def.node;
    switch (node.kind) {
      case "object":
        return this.objectShapes(def, node);
      case "tagged":
        return this.taggedShapes(node, code`T.${name(def.name)}`, { fields: [] }, false);
      default:
        return [];
    }
  }

  /** An object def: one builder, or one per variant of a tagged mixin (the def's fields included). */
  private objectShapes(def: Def, node: ObjectNode): Shape[] {
    const target = code`T.${name(def.name)}`;
    if (node.mixin?.kind === "tagged") return this.taggedShapes(node.mixin, target, { fields: ownFields(node) }, true);
    return [{ name: def.name, target, doc: def.doc, fields: node.fields, ...(node.mixin ? { rest: mixinRest(node.mixin) } : {}) }];
  }

  /**
   * Builders of a tagged union's variants. `common` are fields every variant
   * shares (a mixin's object); `extract` types each as its member of `union`.
   */
  private taggedShapes(node: TaggedUnionNode, union: Code, common: Parts, extract: boolean): Shape[] {
    const target = (variant: string): Code => (extract ? code`Extract<${union}, T.${name(variant)}>` : code`T.${name(variant)}`);
    const shapes: Shape[] = node.variants.map((v) => this.variantShape(node.tag, v, target(v.name), common));
    if (node.other) shapes.push(customShape(node.tag, node.other, target(node.other.name), common));
    if (node.absent) shapes.push({ name: node.absent.name, target: target(node.absent.name), doc: node.absent.doc, fields: common.fields });
    return shapes;
  }

  private variantShape(tag: string, variant: TaggedVariant, target: Code, common: Parts): Shape {
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
        return { fields: ownFields(node), ...(node.mixin ? { rest: mixinRest(node.mixin) } : {}) };
      default:
        return { fields: [], rest: { name: "value", optional: false } };
    }
  }
}

/** The runtime spec constants: one per distinct spec, named after the first builder using it (`B_ToolCallUpdate`). */
interface SpecConstants {
  /** Each distinct spec literal and its constant, in order of first use. */
  readonly declarations: readonly { readonly literal: Code; readonly constant: Code }[];
  /** The constant of a builder's spec. */
  of(shape: Shape): Code;
  /** The module values a parameter must not shadow: the runtime namespace and every constant. */
  readonly reserved: ReadonlySet<string>;
}

function specConstants(shapes: readonly Shape[]): SpecConstants {
  const byLiteral = new Map<string, { readonly literal: Code; readonly constant: Code }>();
  for (const shape of shapes) {
    const literal = specLiteral(shape);
    // Builder names are unique in the module, so the first user's name makes a unique constant name.
    if (!byLiteral.has(literal.text)) byLiteral.set(literal.text, { literal, constant: name(`B_${shape.name}`) });
  }
  const declarations = [...byLiteral.values()];
  return {
    declarations,
    of: (shape) => byLiteral.get(specLiteral(shape).text)!.constant,
    reserved: new Set(["rt", ...declarations.map((d) => d.constant.text)]),
  };
}

/** The keys of a builder's value (tag first) and those with setters, as the runtime's `BuilderSpec` literal. */
function specLiteral(shape: Shape): Code {
  const keys = [...(shape.tag ? [shape.tag.key] : []), ...shape.fields.map((f) => f.name)];
  const setters = shape.fields.filter((f) => !f.required).map((f) => f.name);
  return code`{ keys: [${join(keys.map((k) => code`${k}`), code`, `)}], setters: [${join(setters.map((k) => code`${k}`), code`, `)}] }`;
}

/** One exported builder function. */
function builder(shape: Shape, specs: SpecConstants, { rt, Builder, Rest }: Names): Code {
  const params = paramNames(shape, specs.reserved);
  const required = shape.fields.filter((f) => f.required);
  const signature = [
    ...(shape.tag?.value === undefined && shape.tag ? [code`${params.tag}: ${shape.target}[${shape.tag.key}]`] : []),
    ...required.map((f) => code`${params.field(f.name)}: ${shape.target}[${f.name}]`),
    ...(shape.rest ? [code`${params.rest}${shape.rest.optional ? code`?` : code``}: ${Rest}<${shape.target}, ${keyUnion(shape)}>`] : []),
  ];
  const entries = [
    ...(shape.tag ? [code`${literalKey(shape.tag.key)}: ${shape.tag.value === undefined ? params.tag : code`${shape.tag.value}`}`] : []),
    ...required.map((f) => property(f.name, params.field(f.name))),
  ];
  const returns = code`${Builder}<${shape.target}${shape.rest ? setterUnion(shape) : code``}>`;
  const fields = entries.length ? code`{ ${join(entries, code`, `)} }` : code`{}`;
  const call = code`${rt}.start(${specs.of(shape)}, ${fields}${shape.rest ? code`, ${params.rest}` : code``})`;
  return code`${builderDoc(shape)}${block(code`export function ${name(shape.name)}(${join(signature, code`, `)}): ${returns}`, [code`return ${call};`])}`;
}

/** With a union-typed part the setters are listed explicitly (a union's optional keys cannot be derived). */
function setterUnion(shape: Shape): Code {
  const optional = shape.fields.filter((f) => !f.required);
  return code`, ${optional.length ? join(optional.map((f) => code`${f.name}`), code` | `) : code`never`}`;
}

/** A custom variant (S27, S33): built from a tag plus a field map; a stray tag key in the map is dropped. */
function customShape(tag: string, other: OtherVariant, target: Code, common: Parts): Shape {
  const required = other.required.length > 0 || common.fields.some((f) => f.required);
  return { name: other.name, target, doc: other.doc, tag: { key: tag }, fields: [], rest: { name: "fields", optional: !required } };
}

/** Parameter names: the field name when it is an identifier, else a safe variant; never clashing, never shadowing a module value in `reserved`. */
function paramNames(shape: Shape, reserved: ReadonlySet<string>): { tag: Code; rest: Code; field: (name: string) => Code } {
  const used = new Set<string>();
  const claim = (wanted: string): Code => {
    let param = isIdentifier(wanted) || isIdentifier(`${wanted}_`) ? wanted : "value";
    while (used.has(param) || !isIdentifier(param) || reserved.has(param)) param += "_";
    used.add(param);
    return name(param);
  };
  const tag = shape.tag?.value === undefined ? claim("tag") : code``;
  const fields = new Map(shape.fields.filter((f) => f.required).map((f) => [f.name, claim(f.name)]));
  const rest = shape.rest ? claim(shape.rest.name) : code``;
  return { tag, rest, field: (field) => fields.get(field)! };
}

/** `key: param`, or the shorthand when they are the same identifier. */
function property(key: string, param: Code): Code {
  return key === param.text && key !== "__proto__" ? param : code`${literalKey(key)}: ${param}`;
}

/** The keys a builder sets itself, as a union of literals (`never` when none). */
function keyUnion(shape: Shape): Code {
  const keys = [...(shape.tag ? [shape.tag.key] : []), ...shape.fields.map((f) => f.name)];
  return keys.length ? join(keys.map((k) => code`${k}`), code` | `) : code`never`;
}

/** The entry parameter holding a mixin: the tagged union's variant (optional when the tag may be absent), or the untagged alternative. */
function mixinRest(mixin: TaggedUnionNode | UnionNode): NonNullable<Shape["rest"]> {
  return mixin.kind === "tagged" ? { name: "variant", optional: mixin.absent !== undefined } : { name: "alternative", optional: false };
}

function lowerCamel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** A one-line doc; the conventions are documented once, on the runtime `Builder` type and the module. */
function builderDoc(shape: Shape): Code {
  const tag = shape.tag?.value !== undefined ? ` with \`${shape.tag.key}: ${JSON.stringify(shape.tag.value)}\`` : shape.tag ? " from a custom tag and its fields" : "";
  return doc([`Builder of \`${shape.name}\`${tag} (S33).`, ...(shape.doc.experimental ? ["@experimental"] : [])]);
}

/** Emits the `build.ts` module body of one surface. */
export function emitBuilders(model: SurfaceModel): string {
  return new BuilderWriter(model).emit();
}
