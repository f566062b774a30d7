/**
 * emitTypes: IR -> `types.ts` of one surface. One function per IR node kind;
 * tagged-union variants become named exported types so that builders and
 * users can refer to them.
 */
import { ident, jsDoc, literal, propertyKey } from "../code.js";
import type { Def, Doc, EnumNode, Field, Node, ObjectNode, OtherVariant, SchemaIR, TaggedUnionNode, UnionNode } from "../ir.js";

/**
 * The tag type of an open union's custom variant (S27). TypeScript narrows a
 * union only when every member's tag is a literal or a pattern literal, so the
 * custom variant is typed with the extension namespace `_${string}`: a
 * `switch` on the tag narrows known variants, `default` still sees the custom
 * one, and a known tag can never be mistaken for it. Tags reserved for future
 * ACP versions (no `_` prefix) are accepted by the parsers at run time.
 */
export const CUSTOM_TAG_TYPE = "`_${string}`";

/** Declarations collected while walking one surface. */
class TypeWriter {
  private readonly out: string[] = [];

  constructor(private readonly ir: SchemaIR) {}

  /** The whole `types.ts` body for the surface. */
  emit(): string {
    for (const def of this.ir.defs) this.def(def);
    return this.out.join("\n");
  }

  private def(def: Def): void {
    const doc = defDoc(def, this.ir);
    const name = ident(def.name);
    const node = def.node;
    if (node.kind === "object" && !node.mixin) {
      this.out.push(`${doc}export interface ${name} ${this.objectBody(node, "")}\n`);
      return;
    }
    this.out.push(`${doc}export type ${name} =${spaced(this.type(node, ""))};\n`);
  }

  /** The TypeScript type of a node, written at indentation `indent`. */
  type(node: Node, indent: string): string {
    switch (node.kind) {
      case "ref":
        return ident(node.name);
      case "json":
        return "unknown";
      case "null":
        return "null";
      case "boolean":
        return "boolean";
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "const":
        return literal(node.value);
      case "nullable":
        return `${this.type(node.inner, indent)} | null`;
      case "array":
        return `${this.operand(node.items, indent)}[]`;
      case "record":
        return `{ [key: string]: ${this.type(node.values, indent)} }`;
      case "object":
        return this.object(node, indent);
      case "enum":
        return enumType(node);
      case "tagged":
        return this.tagged(node);
      case "union":
        return this.union(node, indent);
    }
  }

  /** A type used where a union would need parentheses (array items, intersections). */
  private operand(node: Node, indent: string): string {
    const text = this.type(node, indent);
    const needsParens = node.kind === "nullable" || node.kind === "enum" || node.kind === "tagged" || node.kind === "union" || (node.kind === "object" && !!node.mixin);
    return needsParens ? `(${text})` : text;
  }

  private object(node: ObjectNode, indent: string): string {
    const tag = node.mixin?.kind === "tagged" ? node.mixin.tag : undefined;
    const body = this.objectBody(node, indent, tag);
    if (!node.mixin) return body;
    return `${body} & (${this.type(node.mixin, indent)})`;
  }

  /** `{ fields }`, skipping `omit` (a tag the mixin's variants define precisely). */
  private objectBody(node: ObjectNode, indent: string, omit?: string): string {
    const inner = `${indent}  `;
    const lines = node.fields.filter((f) => f.name !== omit).map((f) => this.field(f, inner));
    if (node.keepsUnknown) lines.push(`${inner}[key: string]: unknown;`);
    return lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
  }

  private field(field: Field, indent: string): string {
    const doc = jsDoc(docLines(field.doc), indent);
    const optional = field.required ? "" : "?";
    return `${doc}${indent}${propertyKey(field.name)}${optional}:${spaced(this.type(field.node, indent))};`;
  }

  /** Declares each variant as a named type and returns their union. */
  private tagged(node: TaggedUnionNode): string {
    const names: string[] = [];
    for (const v of node.variants) {
      const fields = v.fields.map((f) => this.field(f, "  "));
      const head = fields.length ? `{\n  ${propertyKey(node.tag)}: ${literal(v.tagValue)};\n${fields.join("\n")}\n}` : `{ ${propertyKey(node.tag)}: ${literal(v.tagValue)} }`;
      const body = v.payload ? `${head} & ${this.operand(v.payload, "")}` : head;
      const doc = jsDoc([...docLines(v.doc, `Variant \`${v.tagValue}\` (\`${node.tag}: ${JSON.stringify(v.tagValue)}\`).`)]);
      this.out.push(`${doc}export type ${ident(v.name)} = ${body};\n`);
      names.push(v.name);
    }
    if (node.other) {
      this.out.push(this.otherVariant(node.tag, node.other));
      names.push(node.other.name);
    }
    if (node.absent) {
      const doc = jsDoc(docLines(node.absent.doc, `Variant without \`${node.tag}\` (absent or \`null\`).`));
      this.out.push(`${doc}export interface ${ident(node.absent.name)} {\n  ${propertyKey(node.tag)}?: null;\n}\n`);
      names.push(node.absent.name);
    }
    for (const option of node.untagged ?? []) names.push(this.operand(option.node, ""));
    return unionOf(names);
  }

  /** The custom variant of an open union (S27): any `_`-prefixed tag, every property kept raw. */
  private otherVariant(tag: string, other: OtherVariant): string {
    const doc = jsDoc([
      ...docLines(other.doc),
      "",
      `Custom variant (S27): \`${tag}\` is a tag no known variant uses; every received property is kept raw.`,
      "Extensions use `_`-prefixed tags; tags reserved for future ACP versions parse into this variant too.",
      `Any key may hold any value here, so a field read after an \`in\` test is \`unknown\`: narrow by \`${tag}\` first.`,
    ]);
    const lines = [`  ${propertyKey(tag)}: ${CUSTOM_TAG_TYPE};`];
    const declared = new Set(other.fields.map((f) => f.name));
    for (const f of other.fields) lines.push(this.field(f, "  "));
    for (const r of other.required) if (!declared.has(r)) lines.push(`  ${propertyKey(r)}: unknown;`);
    lines.push("  [key: string]: unknown;");
    const body = `{\n${lines.join("\n")}\n}`;
    const name = ident(other.name);
    if (other.mixin) return `${doc}export type ${name} = ${body} & (${this.union(other.mixin, "")});\n`;
    return `${doc}export interface ${name} ${body}\n`;
  }

  private union(node: UnionNode, indent: string): string {
    return unionOf(node.options.map((o) => this.operand(o.node, indent)), indent);
  }
}

/** Literal members, plus `(string & {})` / `(number & {})` when open (S28) so literals still autocomplete. */
function enumType(node: EnumNode): string {
  const members = node.members.map((m) => literal(m.value));
  if (node.open) members.push(node.base === "string" ? "(string & {})" : "(number & {})");
  return unionOf(members);
}

/** A type after `=` or `:`: a space before it unless it starts on the next line. */
function spaced(text: string): string {
  return text.startsWith("\n") ? text : ` ${text}`;
}

/** `A | B` on one line when short, else one member per line. */
function unionOf(members: readonly string[], indent = ""): string {
  const line = members.join(" | ");
  if (line.length <= 100 || members.some((m) => m.includes("\n"))) return line;
  return members.map((m) => `\n${indent}  | ${m}`).join("");
}

function defDoc(def: Def, ir: SchemaIR): string {
  const lines = docLines(def.doc, `\`${def.name}\` (ACP ${ir.surface}).`);
  if (def.docsIgnore) lines.push("", "Dispatch-only JSON-RPC wrapper (`x-docs-ignore`, S32).");
  if (def.method) lines.push("", `Method \`${def.method.method}\`, handled by the ${def.method.side} side (S32).`);
  if (def.node.kind === "enum") {
    lines.push("", ...enumMemberDocs(def.node));
  }
  if (def.doc.experimental && !lines.includes("@experimental")) lines.push("@experimental");
  return jsDoc(lines);
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
export function emitTypes(ir: SchemaIR): string {
  return new TypeWriter(ir).emit();
}
