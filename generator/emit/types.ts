/**
 * emitTypes: IR -> `types.ts` of one surface. One function per IR node kind;
 * tagged-union variants become named exported types so that builders and
 * users can refer to them.
 */
import { block, code, doc, GeneratedFile, indent, join, key, lines, name, type Code } from "../code.js";
import { mixinTag, type Def, type Doc, type EnumNode, type Field, type Node, type ObjectNode, type OtherVariant, type TaggedUnionNode, type UnionNode } from "../ir.js";
import type { SurfaceModel } from "../model.js";

/** Declarations collected while walking one surface. */
class TypeWriter {
  private readonly out: Code[] = [];

  constructor(private readonly model: Pick<SurfaceModel, "surface" | "defs">) {}

  /** The whole `types.ts` body for the surface. */
  emit(): string {
    for (const def of this.model.defs) this.def(def);
    const f = new GeneratedFile();
    f.print(...this.out);
    return f.toString();
  }

  private def(def: Def): void {
    const comment = defDoc(def, this.model.surface);
    const node = def.node;
    if (node.kind === "object" && !node.mixin) {
      this.out.push(code`${comment}export interface ${name(def.name)} ${this.objectBody(node)}`);
      return;
    }
    this.out.push(code`${comment}export type ${name(def.name)} =${spaced(this.type(node))};`);
  }

  /** The TypeScript type of a node. */
  type(node: Node): Code {
    switch (node.kind) {
      case "ref":
        return name(node.name);
      case "json":
        return code`unknown`;
      case "null":
        return code`null`;
      case "boolean":
        return code`boolean`;
      case "string":
        return code`string`;
      case "integer":
      case "number":
        return code`number`;
      case "const":
        return code`${node.value}`;
      case "nullable":
        return code`${this.type(node.inner)} | null`;
      case "array":
        return code`${this.operand(node.items)}[]`;
      case "record":
        return code`{ [key: string]: ${this.type(node.values)} }`;
      case "object":
        return this.object(node);
      case "enum":
        return enumType(node);
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node);
    }
  }

  /** A type used where a union would need parentheses (array items, intersections). */
  private operand(node: Node): Code {
    const text = this.type(node);
    const needsParens = node.kind === "nullable" || node.kind === "enum" || node.kind === "tagged" || node.kind === "union" || (node.kind === "object" && !!node.mixin);
    return needsParens ? code`(${text})` : text;
  }

  private object(node: ObjectNode): Code {
    const body = this.objectBody(node, mixinTag(node));
    if (!node.mixin) return body;
    return code`${body} & (${this.type(node.mixin)})`;
  }

  /** `{ fields }`, skipping `omit` (a tag the mixin's variants define precisely). */
  private objectBody(node: ObjectNode, omit?: string): Code {
    const members = node.fields.filter((f) => f.name !== omit).map((f) => this.field(f));
    if (node.keepsUnknown) members.push(code`[key: string]: unknown;`);
    return block(code``, members);
  }

  private field(field: Field): Code {
    const optional = field.required ? code`` : code`?`;
    return code`${doc(docLines(field.doc))}${key(field.name)}${optional}:${spaced(this.type(field.node))};`;
  }

  /** Declares each variant as a named type and returns their union. */
  private tagged(node: TaggedUnionNode): Code {
    const names: Code[] = [];
    const tag = key(node.tag);
    for (const v of node.variants) {
      const fields = v.fields.map((f) => this.field(f));
      const head = fields.length ? block(code``, [code`${tag}: ${v.tagValue};`, ...fields]) : code`{ ${tag}: ${v.tagValue} }`;
      const body = v.payload ? code`${head} & ${this.operand(v.payload)}` : head;
      const comment = doc(docLines(v.doc, `Variant \`${v.tagValue}\` (\`${node.tag}: ${JSON.stringify(v.tagValue)}\`).`));
      this.out.push(code`${comment}export type ${name(v.name)} = ${body};`);
      names.push(name(v.name));
    }
    if (node.other) {
      this.out.push(this.otherVariant(node.tag, node.other));
      names.push(name(node.other.name));
    }
    if (node.absent) {
      const comment = doc(docLines(node.absent.doc, `Variant without \`${node.tag}\` (absent or \`null\`).`));
      this.out.push(code`${comment}export interface ${name(node.absent.name)} ${block(code``, [code`${tag}?: null;`])}`);
      names.push(name(node.absent.name));
    }
    for (const option of node.untagged ?? []) names.push(this.operand(option.node));
    return unionOf(names);
  }

  /** The custom variant of an open union (S27): any `_`-prefixed tag, every property kept raw. */
  private otherVariant(tag: string, other: OtherVariant): Code {
    const comment = doc([
      ...docLines(other.doc),
      "",
      `Custom variant (S27): \`${tag}\` is a tag no known variant uses; every received property is kept raw.`,
      "Extensions use `_`-prefixed tags; tags reserved for future ACP versions parse into this variant too.",
      `Any key may hold any value here, so a field read after an \`in\` test is \`unknown\`: narrow by \`${tag}\` first.`,
    ]);
    const members = [code`${key(tag)}: ${customTagType};`];
    const declared = new Set(other.fields.map((f) => f.name));
    for (const f of other.fields) members.push(this.field(f));
    for (const r of other.required) if (!declared.has(r)) members.push(code`${key(r)}: unknown;`);
    members.push(code`[key: string]: unknown;`);
    const body = block(code``, members);
    if (other.mixin) return code`${comment}export type ${name(other.name)} = ${body} & (${this.union(other.mixin)});`;
    return code`${comment}export interface ${name(other.name)} ${body}`;
  }

  private union(node: UnionNode): Code {
    return unionOf(node.options.map((o) => this.operand(o.node)));
  }
}

/**
 * The tag type of an open union's custom variant (S27). TypeScript narrows a
 * union only when every member's tag is a literal or a pattern literal, so the
 * custom variant is typed with the extension namespace `_${string}`: a
 * `switch` on the tag narrows known variants, `default` still sees the custom
 * one, and a known tag can never be mistaken for it. Tags reserved for future
 * ACP versions (no `_` prefix) are accepted by the parsers at run time.
 */
const customTagType = code`\`_\${string}\``;

/** Literal members, plus `(string & {})` / `(number & {})` when open (S28) so literals still autocomplete. */
function enumType(node: EnumNode): Code {
  const members = node.members.map((m) => code`${m.value}`);
  if (node.open) members.push(node.base === "string" ? code`(string & {})` : code`(number & {})`);
  return unionOf(members);
}

/** A type after `=` or `:`: a space before it unless it starts on the next line. */
function spaced(type: Code): Code {
  return type.text.startsWith("\n") ? type : code` ${type}`;
}

/** `A | B` on one line when short, else one member per line (indented by the enclosing block). */
function unionOf(members: readonly Code[]): Code {
  const line = join(members, code` | `);
  if (line.text.length <= 100 || members.some((m) => m.text.includes("\n"))) return line;
  return code`\n${indent(lines(members.map((m) => code`| ${m}`)))}`;
}

function defDoc(def: Def, surface: string): Code {
  const lines = docLines(def.doc, `\`${def.name}\` (ACP ${surface}).`);
  if (def.docsIgnore) lines.push("", "Dispatch-only JSON-RPC wrapper (`x-docs-ignore`, S32).");
  if (def.method) lines.push("", `Method \`${def.method.method}\`, handled by the ${def.method.side} side (S32).`);
  if (def.node.kind === "enum") {
    lines.push("", ...enumMemberDocs(def.node));
  }
  if (def.doc.experimental && !lines.includes("@experimental")) lines.push("@experimental");
  return doc(lines);
}

function enumMemberDocs(node: EnumNode): string[] {
  const lines = node.members.map((m) => {
    const about = m.title ?? m.doc.text?.split("\n")[0];
    return `- \`${JSON.stringify(m.value)}\`${about ? `: ${about}` : ""}`;
  });
  if (node.open) lines.push(`- any other ${node.base === "string" ? "string" : "integer"} is kept verbatim (open enum, S28)`);
  return lines;
}

/** Description lines (or a fallback) with `@experimental` for UNSTABLE items. */
function docLines(doc: Doc, fallback?: string): string[] {
  const lines = doc.text !== undefined ? [doc.text] : fallback !== undefined ? [fallback] : [];
  if (doc.experimental) lines.push("", "@experimental");
  return lines;
}

/** Emits the `types.ts` module body of one surface. */
export function emitTypes(model: Pick<SurfaceModel, "surface" | "defs">): string {
  return new TypeWriter(model).emit();
}
