/**
 * Compares two IR nodes at one location: one function per node kind. Every
 * change is reported under its rule id (findings.ts) in the WIRE and/or API
 * category, with the severity policy of site.ts.
 */
import type { Def, Doc, EnumNode, Field, Node, ObjectNode, TaggedUnionNode, UnionOption } from "../ir.js";
import { nodeShape } from "./shape.js";
import { newReadersReject, oldReadersReject, report, whenNewReadersReject, whenOldReadersReject, within, type Site } from "./site.js";

/** Placeholder name of an untitled variant the naming table lacks (reported as `variant-unnamed`). */
export const UNNAMED_VARIANT = "(unnamed)";

type NodeOf<K extends Node["kind"]> = Extract<Node, { kind: K }>;

/** Compares the values at one location. */
export function compareNodes(old: Node, next: Node, site: Site): void {
  if (old.kind === "ref" && next.kind === "ref" && old.name === next.name) return; // compared at the type itself
  const [wasNullable, oldValue] = splitNull(old, site.defs.old);
  const [isNullable, newValue] = splitNull(next, site.defs.new);
  if (wasNullable !== isNullable) nullabilityChanged(isNullable, site);
  compareShapes(oldValue, newValue, site);
}

/**
 * Whether a node accepts `null`, and what else it accepts. `T | null` is
 * written as a nullable, as a union with a `null` option (2.0.0's
 * `RequestId`) or behind a reference; all read the same here.
 */
function splitNull(node: Node, defs: ReadonlyMap<string, Def>, following: ReadonlySet<string> = new Set()): [boolean, Node] {
  switch (node.kind) {
    case "nullable":
      return [true, node.inner];
    case "json":
      return [true, node];
    case "ref": {
      const target = defs.get(node.name)?.node;
      if (!target || following.has(node.name)) return [false, node];
      const [nullable, value] = splitNull(target, defs, new Set([...following, node.name]));
      return nullable ? [true, value] : [false, node];
    }
    case "union": {
      const rest = node.options.filter((o) => o.node.kind !== "null");
      if (rest.length === node.options.length) return [false, node];
      return [true, rest.length === 1 ? rest[0]!.node : { ...node, options: rest }];
    }
    default:
      return [false, node];
  }
}

function nullabilityChanged(nowNullable: boolean, site: Site): void {
  if (nowNullable) {
    report(site, "nullability-changed", "WIRE", whenOldReadersReject(site), `now accepts \`null\`; NEW writers may send it and ${oldReadersReject(site)} it`);
    report(site, "nullability-changed", "API", "error", "the type now includes `null`; code reading it must handle `null`");
  } else {
    report(site, "nullability-changed", "WIRE", whenNewReadersReject(site), `no longer accepts \`null\`; ${newReadersReject(site)} it from OLD writers`);
    report(site, "nullability-changed", "API", "error", "the type no longer includes `null`; code assigning `null` no longer compiles");
  }
}

function compareShapes(old: Node, next: Node, site: Site): void {
  if (old.kind === "ref" || next.kind === "ref") return compareReferenced(old, next, site);
  if (acceptsAnyValue(old) || acceptsAnyValue(next)) return compareAnyValue(old, next, site);
  if (old.kind === "object" && next.kind === "tagged") return objectBecameTagged(old, next, site);
  if (old.kind !== next.kind) return typeChanged(site, `${describe(old)} became ${describe(next)}`);
  const same = <K extends Node["kind"]>(_kind: K) => next as NodeOf<K>;
  switch (old.kind) {
    case "const":
      if (old.value !== same("const").value) typeChanged(site, `constant ${JSON.stringify(old.value)} became ${JSON.stringify(same("const").value)}`);
      return;
    case "string":
      compareBounds(stringBounds(old), stringBounds(same("string")), site);
      compareFormats(old.format, same("string").format, site);
      return comparePatterns(old.pattern, same("string").pattern, site);
    case "integer":
    case "number":
      return compareBounds(numberBounds(old), numberBounds(same(old.kind)), site);
    case "array":
      compareBounds({ "minimum item count": [old.minItems, undefined] }, { "minimum item count": [same("array").minItems, undefined] }, site);
      return compareNodes(old.items, same("array").items, within(site, `${site.location}[]`));
    case "record":
      return compareNodes(old.values, same("record").values, within(site, `${site.location}{}`));
    case "object":
      return compareObjects(old, same("object"), site);
    case "enum":
      return compareEnums(old, same("enum"), site);
    case "tagged":
      compareExclusive(old, same("tagged"), site);
      return compareTagged(old, same("tagged"), site);
    case "union":
      compareExclusive(old, same("union"), site);
      return compareOptions(old.options, same("union").options, site);
    default:
      return; // json, null, boolean: nothing more to differ
  }
}

/** `type-changed`: both categories, always an error. */
function typeChanged(site: Site, what: string): void {
  report(site, "type-changed", "WIRE", "error", `${what}; readers on each version may reject values written for the other`);
  report(site, "type-changed", "API", "error", `${what}; code using the old type no longer compiles`);
}

/**
 * An object became a tagged union (2.4.0's `AvailableCommand`). OLD writers
 * send no tag, so NEW readers reject their values. OLD readers ignore the
 * new tag (S29): they still read NEW values when every variant carries the
 * properties OLD requires.
 */
function objectBecameTagged(old: ObjectNode, next: TaggedUnionNode, site: Site): void {
  const what = `an object became a tagged union on \`${next.tag}\``;
  const required = old.fields.filter((f) => f.required).map((f) => f.name);
  const carries = (names: readonly string[]) => required.every((name) => names.includes(name));
  const variants = next.variants.map((v) => [...requiredNames(v.payload, site.defs.new), ...v.fields.filter((f) => f.required).map((f) => f.name)]);
  const oldReadsNew = variants.every(carries) && (!next.other || carries(next.other.required));
  const oldSide = oldReadsNew
    ? `OLD readers ignore the tag (S29) and read NEW values, which all carry ${required.map((n) => `\`${n}\``).join(", ") || "what OLD requires"}`
    : `some NEW variants lack properties OLD requires: ${oldReadersReject(site)} them`;
  report(site, "type-changed", "WIRE", oldReadsNew ? whenNewReadersReject(site) : "error", `${what}; OLD writers send no \`${next.tag}\` and ${newReadersReject(site)} that; ${oldSide}`);
  report(site, "type-changed", "API", "error", `${what}; code using the old type no longer compiles`);
}

/** The required property names of an object, looked up through one reference. */
function requiredNames(node: Node | undefined, defs: ReadonlyMap<string, Def>): string[] {
  const value = node?.kind === "ref" ? defs.get(node.name)?.node : node;
  return value?.kind === "object" ? value.fields.filter((f) => f.required).map((f) => f.name) : [];
}

/** Any JSON value, or a union with an any-value option (2.4.0's `ErrorData`: known shapes "or any other value"). */
function acceptsAnyValue(node: Node): boolean {
  return node.kind === "json" || (node.kind === "union" && node.options.some((o) => o.node.kind === "json"));
}

/** One side accepts any value: the other accepts more (loosened) or less (tightened). */
function compareAnyValue(old: Node, next: Node, site: Site): void {
  const wasAny = acceptsAnyValue(old);
  const isAny = acceptsAnyValue(next);
  if (wasAny && isAny) return;
  const what = `${wasAny ? "any JSON value" : describe(old)} became ${isAny ? "any JSON value" : describe(next)}`;
  constraintChanged(site, what, wasAny, isAny);
  report(site, "type-changed", "API", "error", `${what}; code using the old type no longer compiles`);
}

const KIND_NAMES: Record<Node["kind"], string> = {
  ref: "a reference",
  json: "any JSON value",
  null: "null",
  boolean: "a boolean",
  string: "a string",
  integer: "an integer",
  number: "a number",
  const: "a constant",
  nullable: "a nullable value",
  array: "an array",
  record: "a map",
  object: "an object",
  enum: "an enum",
  tagged: "a tagged union",
  union: "a union",
};

function describe(node: Node): string {
  return KIND_NAMES[node.kind];
}

/**
 * A reference on either side. The same name is compared once, at the type
 * itself. Otherwise the referenced type is compared structurally with the
 * other side: TypeScript is structural, so pointing at another type of the
 * same shape breaks nothing, and a renamed or removed name is reported at the
 * type (`type-renamed`, `type-removed`).
 */
function compareReferenced(old: Node, next: Node, site: Site): void {
  if (old.kind === "ref" && next.kind === "ref" && old.name === next.name) return;
  const pair = `${old.kind === "ref" ? old.name : "(inline)"}\u0000${next.kind === "ref" ? next.name : "(inline)"}`;
  const oldValue = old.kind === "ref" ? site.defs.old.get(old.name)?.node : old;
  const newValue = next.kind === "ref" ? site.defs.new.get(next.name)?.node : next;
  if (!oldValue || !newValue || site.following.has(pair)) return;
  site.following.add(pair);
  // splitNull has already looked through the references: what they name does not accept null.
  compareShapes(oldValue, newValue, site);
  site.following.delete(pair);
}

/** Lower and upper limits of what a value accepts, by name; `undefined` is unbounded. */
type Bounds = Record<string, readonly [lower: number | bigint | undefined, upper: number | bigint | undefined]>;

function stringBounds(node: NodeOf<"string">): Bounds {
  return { "minimum length": [node.minLength, undefined] };
}

function numberBounds(node: NodeOf<"integer"> | NodeOf<"number">): Bounds {
  return { range: [node.minimum, node.maximum] };
}

/** `constraint-tightened` / `constraint-loosened` (WIRE only: the TypeScript type is the same). */
function compareBounds(old: Bounds, next: Bounds, site: Site): void {
  for (const [name, [oldLow, oldHigh]] of Object.entries(old)) {
    const [newLow, newHigh] = next[name]!;
    const tighter = stricterLower(oldLow, newLow) || stricterUpper(oldHigh, newHigh);
    const looser = stricterLower(newLow, oldLow) || stricterUpper(newHigh, oldHigh);
    constraintChanged(site, `${name} ${formatBounds(oldLow, oldHigh)} became ${formatBounds(newLow, newHigh)}`, tighter, looser);
  }
}

/** A pattern added tightens, one removed loosens, one replaced may do both. */
function comparePatterns(old: string | undefined, next: string | undefined, site: Site): void {
  if (old === next) return;
  const what = `pattern ${old === undefined ? "(none)" : JSON.stringify(old)} became ${next === undefined ? "(none)" : JSON.stringify(next)}`;
  constraintChanged(site, what, next !== undefined, old !== undefined);
}

function constraintChanged(site: Site, what: string, tighter: boolean, looser: boolean): void {
  if (tighter) report(site, "constraint-tightened", "WIRE", whenNewReadersReject(site), `${what}; ${newReadersReject(site)} some values OLD writers may send`);
  if (looser) report(site, "constraint-loosened", "WIRE", whenOldReadersReject(site), `${what}; NEW writers may send values ${oldReadersReject(site)}`);
}

/** `format-changed`: a string `format` is an annotation, never asserted (S31): information only. */
function compareFormats(old: string | undefined, next: string | undefined, site: Site): void {
  if (old === next) return;
  const what = `format ${old === undefined ? "(none)" : JSON.stringify(old)} became ${next === undefined ? "(none)" : JSON.stringify(next)}`;
  report(site, "format-changed", "WIRE", "info", `${what}; an annotation only (S31): neither side's validator asserts it`);
}

/**
 * `anyOf` became `oneOf` (a value matching two options is now rejected:
 * tightened) or the other way (loosened).
 */
function compareExclusive(old: { readonly exclusive: boolean }, next: { readonly exclusive: boolean }, site: Site): void {
  if (old.exclusive === next.exclusive) return;
  const what = old.exclusive ? "`oneOf` became `anyOf` (a value may now match several options)" : "`anyOf` became `oneOf` (a value matching several options is now invalid)";
  constraintChanged(site, what, next.exclusive, old.exclusive);
}

/** Lower limit `next` admits less than lower limit `old` (absent = unbounded). */
function stricterLower(old: number | bigint | undefined, next: number | bigint | undefined): boolean {
  return next !== undefined && (old === undefined || next > old);
}

/** Upper limit `next` admits less than upper limit `old` (absent = unbounded). */
function stricterUpper(old: number | bigint | undefined, next: number | bigint | undefined): boolean {
  return next !== undefined && (old === undefined || next < old);
}

function formatBounds(low: number | bigint | undefined, high: number | bigint | undefined): string {
  if (high === undefined) return low === undefined ? "(none)" : `>= ${low}`;
  return `${low ?? "-inf"}..${high}`;
}

function compareObjects(old: ObjectNode, next: ObjectNode, site: Site): void {
  compareFields(old.fields, next.fields, next.keepsUnknown, site);
  if (old.mixin && next.mixin) return compareShapes(old.mixin, next.mixin, site);
  if (old.mixin || next.mixin) typeChanged(site, next.mixin ? "a plain object became a union of objects" : "a union of objects became a plain object");
}

/** Properties of two objects (or variants), matched by name; `keptRaw`: NEW keeps undeclared properties (S27, S29). */
function compareFields(old: readonly Field[], next: readonly Field[], keptRaw: boolean, site: Site): void {
  const newByName = new Map(next.map((f) => [f.name, f]));
  const oldNames = new Set(old.map((f) => f.name));
  const added = next.filter((f) => !oldNames.has(f.name));
  const renames = renamedFields(old.filter((f) => !newByName.has(f.name)), added, site);
  for (const field of old) {
    const match = newByName.get(field.name);
    const renamed = renames.get(field);
    const at = within(site, `${site.location}.${field.name}`, field, match ?? renamed);
    if (match) compareField(field, match, at);
    else if (renamed) fieldRenamed(field, renamed, at);
    else fieldRemoved(field, keptRaw, at);
  }
  const renamedTo = new Set(renames.values());
  for (const field of added) if (!renamedTo.has(field)) fieldAdded(field, within(site, `${site.location}.${field.name}`, undefined, field));
}

/**
 * Removed and added properties of one object that pair up one to one by
 * shape (same value, seen through one reference: `id: string` and
 * `providerId: ProviderId` alike; same requiredness): a rename, reported once.
 */
function renamedFields(removed: readonly Field[], added: readonly Field[], site: Site): Map<Field, Field> {
  const key = (f: Field, defs: ReadonlyMap<string, Def>) => {
    const value = f.node.kind === "ref" ? (defs.get(f.node.name)?.node ?? f.node) : f.node;
    return `${f.required}\u0000${nodeShape(value)}`;
  };
  const renames = new Map<Field, Field>();
  for (const field of removed) {
    const candidates = added.filter((a) => key(a, site.defs.new) === key(field, site.defs.old));
    const rivals = removed.filter((r) => key(r, site.defs.old) === key(field, site.defs.old));
    if (candidates.length === 1 && rivals.length === 1) renames.set(field, candidates[0]!);
  }
  return renames;
}

/** `field-renamed`: one finding per category instead of a removal and an addition. */
function fieldRenamed(old: Field, next: Field, site: Site): void {
  const to = `renamed to \`${next.name}\` (same type)`;
  if (old.required) {
    const severity = whenOldReadersReject(site) === "error" ? "error" : whenNewReadersReject(site);
    report(site, "field-renamed", "WIRE", severity, `${to}; a required property: ${newReadersReject(site)} OLD writers' values and ${oldReadersReject(site)} NEW writers' values`);
  } else {
    report(site, "field-renamed", "WIRE", "warn", `${to}; optional: readers on the other version drop it (S29)`);
  }
  report(site, "field-renamed", "API", "error", `${to}; code reading or setting \`${old.name}\` no longer compiles`);
  compareTolerance(old, next, site);
}

function fieldRemoved(field: Field, keptRaw: boolean, site: Site): void {
  report(site, "field-removed", "API", "error", "the property is gone; code reading or setting it no longer compiles");
  if (field.required) report(site, "field-removed", "WIRE", "error", "was required; NEW writers omit it and OLD readers reject that");
  else if (keptRaw) report(site, "field-removed", "WIRE", "info", "NEW readers keep it raw, unchecked, when OLD writers send it (S27, S29)");
  else report(site, "field-removed", "WIRE", "warn", "NEW readers drop it when OLD writers send it (S29)");
}

function fieldAdded(field: Field, site: Site): void {
  if (field.required) {
    report(site, "field-added", "WIRE", whenNewReadersReject(site), "new required property; OLD writers do not send it and NEW readers reject that");
    report(site, "field-added", "API", "error", "new required property; objects built by OLD code lack it");
  } else {
    report(site, "field-added", "WIRE", "info", "new optional property; OLD readers ignore it (S29)");
    report(site, "field-added", "API", "info", "new optional property");
  }
}

function compareField(old: Field, next: Field, site: Site): void {
  compareStability(old.doc, next.doc, site);
  if (!old.required && next.required) {
    report(site, "field-became-required", "WIRE", whenNewReadersReject(site), "OLD writers may omit it and NEW readers reject that");
    report(site, "field-became-required", "API", "error", "objects built by OLD code may lack it");
  }
  if (old.required && !next.required) {
    report(site, "field-became-optional", "WIRE", "error", "NEW writers may omit it and OLD readers reject that");
    report(site, "field-became-optional", "API", "error", "reads of it may now be `undefined`");
  }
  compareTolerance(old, next, site);
  compareNodes(old.node, next.node, {
    ...site,
    oldDropsMalformed: site.oldDropsMalformed || old.tolerance.defaultOnError,
    newDropsMalformed: site.newDropsMalformed || next.tolerance.defaultOnError,
  });
}

const TOLERANCE_KEYWORDS = {
  defaultOnError: "x-deserialize-default-on-error (S23)",
  skipInvalidItems: "x-deserialize-skip-invalid-items (S24)",
  defaultOnNull: "x-deserialize-default-on-null (S25)",
} as const;

/** `tolerance-changed`: NEW readers are stricter (warn) or more forgiving (info) than OLD ones. */
function compareTolerance(old: Field, next: Field, site: Site): void {
  for (const [flag, keyword] of Object.entries(TOLERANCE_KEYWORDS) as [keyof typeof TOLERANCE_KEYWORDS, string][]) {
    if (old.tolerance[flag] === next.tolerance[flag]) continue;
    if (next.tolerance[flag]) report(site, "tolerance-changed", "WIRE", "info", `gained ${keyword}; NEW readers forgive more`);
    else report(site, "tolerance-changed", "WIRE", "warn", `lost ${keyword}; NEW readers reject values OLD readers forgave`);
  }
}

/** `stability-changed` (API only): stable -> UNSTABLE is a warning, the other way information. */
export function compareStability(old: Doc, next: Doc, site: Site): void {
  if (old.experimental === next.experimental) return;
  const at = { ...site, unstable: false };
  if (next.experimental) report(at, "stability-changed", "API", "warn", "stable item became **UNSTABLE** (`@experimental`)");
  else report(at, "stability-changed", "API", "info", "**UNSTABLE** item became stable");
}

function compareEnums(old: EnumNode, next: EnumNode, site: Site): void {
  if (old.base !== next.base) return typeChanged(site, `a ${old.base} enum became a ${next.base} enum`);
  const oldValues = new Set(old.members.map((m) => m.value));
  const newValues = new Set(next.members.map((m) => m.value));
  for (const value of oldValues) if (!newValues.has(value)) enumValueRemoved(JSON.stringify(value), next.open !== undefined, site);
  for (const value of newValues) if (!oldValues.has(value)) enumValueAdded(JSON.stringify(value), old.open !== undefined, site);
  if (old.open && !next.open) {
    report(site, "enum-closed", "WIRE", whenNewReadersReject(site), "unknown values are now rejected; OLD writers may send them");
    report(site, "enum-closed", "API", "error", "arbitrary values are no longer assignable");
  }
  if (!old.open && next.open) {
    report(site, "enum-opened", "WIRE", whenOldReadersReject(site), "NEW writers may send any value; OLD readers reject unknown ones");
    report(site, "enum-opened", "API", "warn", "the type now admits any value; exhaustive switches no longer are");
  }
}

function enumValueRemoved(value: string, nowOpen: boolean, site: Site): void {
  const at = { ...site, location: `${site.location}=${value}` };
  if (nowOpen) report(at, "enum-value-removed", "WIRE", "info", "NEW readers still accept it as an unknown value (S28)");
  else report(at, "enum-value-removed", "WIRE", whenNewReadersReject(at), "NEW readers reject it; OLD writers may send it");
  report(at, "enum-value-removed", "API", nowOpen ? "warn" : "error", nowOpen ? "no longer a listed literal" : "no longer assignable");
}

function enumValueAdded(value: string, wasOpen: boolean, site: Site): void {
  const at = { ...site, location: `${site.location}=${value}` };
  if (wasOpen) report(at, "enum-value-added", "WIRE", "info", "OLD readers keep it as an unknown value (S28)");
  else report(at, "enum-value-added", "WIRE", whenOldReadersReject(at), "OLD readers reject it; NEW writers may send it");
  report(at, "enum-value-added", "API", wasOpen ? "info" : "warn", wasOpen ? "new listed literal" : "exhaustive switches over the old values miss it");
}

/** One alternative of a union, whatever its kind, keyed for matching. */
interface VariantEntry {
  readonly key: string;
  /** Exported type name. */
  readonly name: string;
  readonly doc: Doc;
  readonly fields: readonly Field[];
  /** Payload (tagged variant) or value (untagged option). */
  readonly body?: Node;
}

function variantsOf(node: TaggedUnionNode): VariantEntry[] {
  return [
    ...node.variants.map((v) => ({ key: `[${JSON.stringify(v.tagValue)}]`, name: v.name, doc: v.doc, fields: v.fields, ...(v.payload ? { body: v.payload } : {}) })),
    ...(node.absent ? [{ key: "[(no tag)]", name: node.absent.name, doc: node.absent.doc, fields: [] }] : []),
  ];
}

/**
 * Alternatives of an untagged union (or the untagged branches of a tagged
 * one). They are not exported types, so their names are no API: an option is
 * matched first by what it accepts, then by name, and keyed by its NEW name.
 */
function compareOptions(old: readonly UnionOption[], next: readonly UnionOption[], site: Site): void {
  const unmatched = [...next];
  const take = (found: UnionOption | undefined) => (found ? unmatched.splice(unmatched.indexOf(found), 1)[0] : undefined);
  const pairs = old.map((o) => [o, take(unmatched.find((n) => nodeShape(n.node) === nodeShape(o.node)))] as const);
  const matched = pairs.map(([o, n]) => [o, n ?? take(unmatched.find((c) => c.name === o.name))] as const);
  const entry = (o: UnionOption, key: string): VariantEntry => ({ key, name: o.name, doc: o.doc, fields: [], body: o.node });
  compareVariantSets(
    matched.map(([o, n]) => entry(o, `[${(n ?? o).name}]`)),
    next.map((n) => entry(n, `[${n.name}]`)),
    { oldOpen: false, newOpen: false, named: false },
    site,
  );
}

function compareTagged(old: TaggedUnionNode, next: TaggedUnionNode, site: Site): void {
  if (old.tag !== next.tag) return typeChanged(site, `the tag property \`${old.tag}\` became \`${next.tag}\``);
  compareVariantSets(variantsOf(old), variantsOf(next), { oldOpen: !!old.other, newOpen: !!next.other, named: true }, site);
  compareOptions(old.untagged ?? [], next.untagged ?? [], site);
  if (old.other && next.other) {
    const at = within(site, `${site.location}[(custom)]`, old.other, next.other);
    const required = (names: readonly string[], fields: readonly Field[]) => fields.map((f) => ({ ...f, required: names.includes(f.name) }));
    compareFields(required(old.other.required, old.other.fields), required(next.other.required, next.other.fields), true, at);
    if (old.other.mixin && next.other.mixin) compareShapes(old.other.mixin, next.other.mixin, at);
  }
  if (old.other && !next.other) {
    report(site, "union-closed", "WIRE", whenNewReadersReject(site), "unknown tags are now rejected; OLD writers may send them (S27)");
    report(site, "union-closed", "API", "error", `the custom variant \`${old.other.name}\` is gone`);
  }
  if (!old.other && next.other) {
    report(site, "union-opened", "WIRE", whenOldReadersReject(site), "NEW writers may send unknown tags; OLD readers reject them (S27)");
    report(site, "union-opened", "API", "warn", `new custom variant \`${next.other.name}\`; exhaustive switches no longer are`);
  }
}

/** How a set of variants behaves: open unions keep unknown tags (S27); `named` variants are exported types. */
interface VariantSetKind {
  readonly oldOpen: boolean;
  readonly newOpen: boolean;
  readonly named: boolean;
}

/** Variants matched by key: added, removed, renamed, and compared one by one. */
function compareVariantSets(old: readonly VariantEntry[], next: readonly VariantEntry[], kind: VariantSetKind, site: Site): void {
  const newByKey = new Map(next.map((v) => [v.key, v]));
  const oldKeys = new Set(old.map((v) => v.key));
  for (const variant of old) {
    const match = newByKey.get(variant.key);
    const at = within(site, `${site.location}${variant.key}`, variant, match);
    if (match) compareVariant(variant, match, kind.named, at);
    else variantRemoved(variant, kind.newOpen, at);
  }
  for (const variant of next) {
    if (!oldKeys.has(variant.key)) variantAdded(variant, kind.oldOpen, within(site, `${site.location}${variant.key}`, undefined, variant));
  }
}

function variantRemoved(variant: VariantEntry, nowOpen: boolean, site: Site): void {
  if (nowOpen) report(site, "variant-removed", "WIRE", "warn", "NEW readers take it for a custom variant and lose its typed meaning (S27)");
  else report(site, "variant-removed", "WIRE", whenNewReadersReject(site), "NEW readers reject it; OLD writers may send it");
  report(site, "variant-removed", "API", "error", `variant \`${variant.name}\` is gone`);
}

function variantAdded(variant: VariantEntry, wasOpen: boolean, site: Site): void {
  if (wasOpen) {
    report(site, "variant-added", "WIRE", "info", "OLD readers keep it as a custom variant (S27)");
    report(site, "variant-added", "API", "info", `new variant type \`${variant.name}\``);
  } else {
    report(site, "variant-added", "WIRE", whenOldReadersReject(site), "the union is closed: OLD readers reject it; NEW writers may send it");
    report(site, "variant-added", "API", "error", `new variant \`${variant.name}\` in a closed union; exhaustive switches miss it`);
  }
}

function compareVariant(old: VariantEntry, next: VariantEntry, named: boolean, site: Site): void {
  compareStability(old.doc, next.doc, site);
  if (named && old.name !== next.name && old.name !== UNNAMED_VARIANT && next.name !== UNNAMED_VARIANT) {
    report(site, "variant-renamed", "API", "error", `the variant type \`${old.name}\` is now \`${next.name}\``);
  }
  compareFields(old.fields, next.fields, false, site);
  // A bare tag is an object with no other properties: a payload of optional fields only adds fields.
  compareNodes(old.body ?? BARE_TAG, next.body ?? BARE_TAG, site);
}

/** The payload of a variant that is only its tag. */
const BARE_TAG: ObjectNode = { kind: "object", fields: [], keepsUnknown: false };
