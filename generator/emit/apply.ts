/**
 * emitApply: the semantics overlay -> `apply.ts` of one surface. One
 * `apply.X(stored, update)` per patch type of the reviewed table (S1-S22):
 * a call of the runtime patch engine with the type's field rules. Pure; the
 * result is the canonical stored form (defaults materialised, no `null`,
 * `_meta` omitted when empty).
 */
import { ident, jsDoc, literal } from "../code.js";
import type { FieldRule, SchemaIR, Upsert } from "../ir.js";
import { runtimeDir, semanticsOf } from "./shared.js";

/** Emits the `apply.ts` module body of one surface. */
export function emitApply(ir: SchemaIR): string {
  const upserts = semanticsOf(ir).upserts.filter((u) => u.patch);
  const head = [
    `import type * as T from "./types.js";`,
    `import { applyUpsert, type UpsertSpec } from ${literal(`${runtimeDir(ir)}/patch.js`)};`,
    "",
  ];
  return [...head, ...upserts.map(applyFunction)].join("\n");
}

/** `apply.X`: its spec constant and the exported function. */
function applyFunction(upsert: Upsert): string {
  const name = ident(upsert.type);
  const doc = jsDoc([
    `Applies the patch \`update\` (a \`${upsert.type}\`) to the stored entity (${upsert.rule}); pure, inputs untouched.`,
    "",
    upsert.key === undefined ? "The entity is a session singleton." : `\`stored\` is the entity last stored for the update's \`${upsert.key}\`, or \`undefined\` on first sight (S4).`,
    "Field rules (schema/semantics.json):",
    ...upsert.fields.filter((f) => f.name !== upsert.key).map((f) => `- \`${f.name}\`: ${describeRule(f.rule)}`),
    "",
    "The result is a fresh object in the canonical stored form; unchanged values are shared with the inputs.",
  ]);
  return (
    `const ${name}Spec: UpsertSpec = ${specLiteral(upsert)};\n\n` +
    `${doc}export function ${name}(stored: T.${name} | undefined, update: T.${name}): T.${name} {\n` +
    `  return applyUpsert(${name}Spec, stored, update);\n}\n`
  );
}

/** The runtime `UpsertSpec` literal of an upsert entry. */
export function specLiteral(upsert: Pick<Upsert, "fields">): string {
  return `[${upsert.fields.map((f) => fieldSpec(f.name, f.rule)).join(", ")}]`;
}

function fieldSpec(name: string, rule: FieldRule): string {
  switch (rule.kind) {
    case "reset":
      return `[${literal(name)}, "reset", ${typeof rule.value === "string" ? literal(rule.value) : "[]"}]`;
    case "metaPatch":
      return `[${literal(name)}, "meta"]`;
    default:
      return `[${literal(name)}, ${literal(rule.kind)}]`;
  }
}

/** One line of the generated doc per field rule. */
function describeRule(rule: FieldRule): string {
  switch (rule.kind) {
    case "replace":
      return "omitted keeps, `null` removes, a value replaces (S1, S2)";
    case "reset":
      return typeof rule.value === "string"
        ? `omitted keeps, \`null\` resets to \`${JSON.stringify(rule.value)}\`, a value replaces; starts as \`${JSON.stringify(rule.value)}\` (S4)`
        : "omitted keeps, `null` and `[]` clear to `[]`, an array replaces; starts as `[]` (S3)";
    case "keep":
      return "omitted and `null` keep, a value replaces (S22)";
    case "latest":
      return "the update's value; omitted and `null` remove it (S15)";
    case "metaPatch":
      return "patched by top-level key, see `applyMeta` (S6)";
  }
}
