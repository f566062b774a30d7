/**
 * emitParseOwned: IR -> `parse-owned.ts` of one surface, the owned-tree decode
 * path. `parseOwned.X(value)` takes a value its caller owns, typically the tree
 * `JSON.parse` just made of a JSON-RPC line: when the tolerant parser would
 * return that tree with at most properties dropped (unknown ones, S29, and
 * optional ones with a malformed value, S23; nothing else to forgive), it
 * deletes those properties in place and returns the tree, with no copy (such
 * keys of the top object itself give a fresh top object holding its other
 * members: cheaper than a `delete`); otherwise `parse.X` runs on the untouched
 * value, so the result always equals `parse.X(value)` (keys in wire order).
 *
 * The generated `e_X(v)` says "parse.X(v) would equal v, less the keys it
 * noted". A JSON-RPC envelope's top is checked by its fields (`k_X`) and
 * rebuilt of them (`o_X`), so its `jsonrpc` is never looked at. The check
 * mirrors the parser's choices (tags, first-decoding alternative, envelopes by
 * method, tolerance keywords) but only ever answers yes when that is certain;
 * every doubt answers no and costs a copy, never a wrong value. It never
 * backtracks: any no ends the whole check. Objects are checked by one `for in`
 * over their keys, each key's value tested in its `case`; where a mixin or a
 * key shared by two parts makes that unsure, a key count (`k_X(v)`: `-1` for
 * no, `Infinity` when every key is kept raw) is compared with the keys the
 * object has (S29).
 */
import type { SurfaceModel } from "../model.js";
import { block, clause, code, doc, name, own, ownSet, type Code } from "../code.js";
import { ownFields, refsWithin, withoutNull, type Def, type Field, type Node, type ObjectNode, type OtherVariant, type TaggedUnionNode, type TaggedVariant, type UnionNode } from "../ir.js";
import { DecodeWriter, isScalar, scalarTest } from "./checks.js";
import { methodDispatch, type MethodDispatch } from "./envelopes.js";

const V = name("v");
/** `keptWhenMalformed`'s answer for a value the parser always drops. */
const NEVER = code`false`;
const X = name("x");
/** The head of a check helper: "the parser would return `v` unchanged". */
const CHECK = code`(v: any): boolean`;
/** The head of a key-count helper: the keys of `v` accounted for, -1 for no, Infinity when all are kept raw. */
const COUNT = code`(v: any): number`;

const MODULE_DOC = [
  "Owned-tree decoding, for a value the caller owns and no longer uses on its own (e.g. the tree",
  "`JSON.parse` just made of a line): `parseOwned.X(value)` equals `parse.X(value)` (keys in wire",
  "order) and never throws, but returns `value` itself, not a copy, when the tolerant parser would",
  "at most drop properties (unknown ones, S29, and malformed optional ones, S23): those are then",
  "deleted from `value` in place, and such keys of `value` itself give a fresh object holding its",
  "other members. A JSON-RPC envelope (`AgentNotification`, `ClientRequest`, ...) is always handed",
  "out as a fresh top object of its declared members (its line's `jsonrpc` goes), the rest in place.",
  "Otherwise `value` is left as it is and the result is that of `parse.X`. `value` must be",
  "a tree (no object in two places), as `JSON.parse` makes. `__proto__` and friends read by",
  "`JSON.parse` are own properties and stay plain data (S34).",
  "",
  "For text, `parseOwned.fromText(line, parseOwned.X)` is `parse.X(JSON.parse(line))` without the",
  "copy: `JSON.parse` makes the tree, the check returns it; text that is not JSON is an issue.",
  "`parseOwned.fromLines(lines, decode)` does the same for a batch of lines, parsing them ahead of the checks.",
];

/** The text entry point for one line, exported as `parseOwned.fromText`. */
const FROM_TEXT = "fromText";
/** The text entry point for a batch of lines, exported as `parseOwned.fromLines`. */
const FROM_LINES = "fromLines";

class ExactWriter extends DecodeWriter {
  /** Defs some other def refers to. */
  private readonly referenced: ReadonlySet<string>;

  constructor(model: SurfaceModel) {
    super(model, { doc: MODULE_DOC, prefix: "parseOwned", imports: [["tolerant", "./parse.js"]], entries: [FROM_TEXT, FROM_LINES] });
    this.referenced = new Set(model.ir.defs.flatMap((d) => refsWithin(d.node).filter((r) => r !== d.name)));
  }

  protected override entries(): Code[] {
    const oneLine = doc([
      "Decodes a JSON text (one JSON-RPC line, say) with an owned-tree decoder: `fromText(line, parseOwned.X)`",
      "equals `parse.X(JSON.parse(line))` and returns the tree `JSON.parse` made when nothing but unknown",
      "properties (deleted in place, S29) changes.",
      "Text that is not JSON gives an issue at the root; never throws, unless `decode` does.",
    ]);
    const batch = doc([
      "Decodes a batch of lines (those of one read from a stream, say): result `i` equals",
      "`fromText(lines[i], (value) => decode(value, i))`, so `fromLines(lines, parseOwned.X)` decodes each as",
      "`parseOwned.X`. The lines are parsed about 64 KiB of text at a time, every `JSON.parse` of those before",
      "the first `decode` of them, which keeps each one's machine code in the CPU's instruction cache (faster",
      "than `fromText` line by line). Never throws, unless `decode` does.",
    ]);
    const oneHead = code`function ${name(`parseOwned_${FROM_TEXT}`)}<V>(text: string, decode: (value: unknown) => Result<V>): Result<V>`;
    const batchHead = code`function ${name(`parseOwned_${FROM_LINES}`)}<V>(lines: readonly string[], decode: (value: unknown, index: number) => Result<V>): Result<V>[]`;
    return [
      code`${oneLine}${block(oneHead, [code`return rt.fromText(text, decode);`])}`,
      code`${batch}${block(batchHead, [code`return rt.fromLines(lines, decode);`])}`,
    ];
  }

  protected ownNames(def: Def): readonly string[] {
    return [`e_${def.name}`, `k_${def.name}`];
  }

  protected wrapper(def: Def): Code {
    return this.ownedFunction(def, "", code`value: unknown`, (test) => [code`const exact = ${test};`], code`(value)`);
  }

  protected askingWrapper(def: Def): Code {
    const check = (test: Code) => [code`let exact: boolean;`, ...this.whileAsked(code`exact = ${test};`)];
    return this.ownedFunction(def, "For", code`method: string, value: unknown`, check, code`(method, value)`);
  }

  /**
   * `parseOwned_X<suffix>`: `check(test)` declares `exact` and sets it to `test` (the def's
   * check of `value`), the unknown keys it noted are settled, and the copying parser
   * (`tolerant.X<suffix>`, called with `args`) decodes whatever must be copied. A JSON-RPC
   * envelope's top object is checked by its fields and handed out rebuilt (`envelope`).
   */
  private ownedFunction(def: Def, suffix: string, params: Code, check: (test: Code) => readonly Code[], args: Code): Code {
    const fn = `${def.name}${suffix}`;
    const envelope = this.envelope(def);
    const kept = envelope ? "a fresh top object of its declared members, holding the rest of `value`" : "`value` itself";
    const comment = doc([`\`parse.${fn}(${suffix ? "method, " : ""}value)\` of a value the caller owns: ${kept} (unknown and malformed optional properties deleted, S29, S23) when nothing else changes; never throws.`]);
    const type = code`T.${name(def.name)}`;
    const value = envelope ? code`${envelope.rebuild}(kept)` : code`kept`;
    return code`${comment}${block(code`function ${name(`parseOwned_${fn}`)}(${params}): Result<${type}>`, [
      code`rt.beginOwned();`,
      ...check(envelope?.check ?? code`${name(`e_${def.name}`)}(value)`),
      code`const kept = rt.settleUnknown(exact, value);`,
      code`return kept !== rt.UNSETTLED ? { ok: true, value: ${value} as ${type} } : tolerant.${name(fn)}${args};`,
    ])}`;
  }

  /**
   * A JSON-RPC envelope (a field routed by method) whose top object always has a key no
   * schema type declares (`jsonrpc`): its `check` reads the declared fields by name (the
   * key count `k_`, no pass over the top's keys), and `rebuild`, `o_X(v)`, makes the fresh
   * top object of those fields, stored in field order as the copying parser stores them, so
   * whatever else the top holds is dropped (S29) without being looked at. The checked object
   * is the def itself or, for a union (a response: result or error), its first alternative
   * that is not a scalar: the one `e_X` answers with. Not for envelopes with a field dropped
   * in place (S23): the rebuild would copy it back.
   */
  private envelope(def: Def): { check: Code; rebuild: Code } | undefined {
    const node = this.checkedObject(def.node);
    if (node?.kind !== "object" || node.mixin || node.keepsUnknown || node.fields.some((f) => f.tolerance.defaultOnError)) return undefined;
    if (!node.fields.some((f) => methodDispatch(withoutNull(f.node), this.defs))) return undefined;
    const OUT = name("out");
    const copies = node.fields.flatMap((f) => [code`x = ${own(V, f.name)};`, code`if (x !== undefined) ${ownSet(OUT, f.name, X)};`]);
    const body = [code`const out: any = {};`, code`let x: any;`, ...copies, code`return out;`];
    return this.pool.rooted(def.name, () => {
      const option = this.checkedOption(def.node);
      const count = option ? this.pool.within(option.name, () => this.counter(option.node)) : this.defCounter(def);
      return { check: code`rt.isObject(value) && ${count}(value) >= 0`, rebuild: this.pool.intern("o_", block(code`(v: any): object`, body)) };
    });
  }

  /** The alternative a union's check answers with: its first that is not a scalar (`undefined` for other nodes). */
  private checkedOption(node: Node): UnionNode["options"][number] | undefined {
    const target = this.resolve(node);
    return target.kind === "union" ? target.options.find((o) => !isScalar(o.node)) : undefined;
  }

  /** The object node whose check runs on a value checked as `node`: itself, or `checkedOption`'s. */
  private checkedObject(node: Node): Node | undefined {
    const target = this.resolve(node);
    if (target.kind !== "union") return target;
    const option = this.checkedOption(target);
    return option && this.resolve(option.node);
  }

  /**
   * `e_X` for every def but a JSON-RPC envelope no other type refers to (its wrapper checks it by
   * `envelope`); object-shaped defs that need one also get `k_X`, their key count.
   */
  protected definition(def: Def): void {
    if (this.envelope(def) && !this.referenced.has(def.name)) return;
    const check = `e_${def.name}`;
    const node = def.node;
    const body = isObjectShaped(node) ? this.objectBody(node, () => this.defCounter(def)) : this.body(node);
    this.pool.define(check, block(code`function ${name(check)}${CHECK}`, body));
  }

  /** `k_X` of an object-shaped def, declared on first use. */
  private defCounter(def: Def): Code {
    const count = `k_${def.name}`;
    return this.pool.rooted(def.name, () => this.pool.define(count, block(code`function ${name(count)}${COUNT}`, this.countBody(def.node))));
  }

  /** A boolean expression: the parser would return `x` unchanged but for the unknown keys it notes; `undefined` for "always". */
  private check(node: Node, x: Code): Code | undefined {
    if (isScalar(node)) return code`(${scalarTest(node, x)})`;
    switch (node.kind) {
      case "ref": {
        // A scalar alias (SessionId) is tested inline: no call, less of the caller's inlining budget.
        const target = this.defs.get(node.name)!.node;
        if (isScalar(target) || target.kind === "json") return this.check(target, x);
        return code`${name(`e_${node.name}`)}(${x})`;
      }
      case "json":
        return undefined;
      case "nullable": {
        const inner = this.check(node.inner, x);
        return inner && code`(${x} === null || ${inner})`;
      }
      default:
        return code`${this.pool.intern("e_", block(CHECK, this.body(node)))}(${x})`;
    }
  }

  /** Statements answering `check` for `v`. */
  private body(node: Node): Code[] {
    switch (node.kind) {
      case "object":
      case "tagged":
        return this.objectBody(node, () => this.counter(node));
      case "array": {
        const item = this.pool.within("item", () => this.check(node.items, X));
        // S24 drops a bad item and minItems is not asserted by the parser: any bad item is a change.
        const loop = item ? [block(code`for (let i = 0; i < v.length; i++)`, [code`const x = v[i];`, code`if (!${item}) return false;`])] : [];
        return [code`if (!Array.isArray(v)) return false;`, ...loop, code`return true;`];
      }
      case "record": {
        const value = this.pool.within("value", () => this.check(node.values, X));
        const loop = value ? [block(code`for (const k of Object.keys(v))`, [code`const x = v[k];`, code`if (!${value}) return false;`])] : [];
        return [code`if (!rt.isObject(v)) return false;`, ...loop, code`return true;`];
      }
      case "union": {
        // S29: a union with an any-JSON alternative is an untyped value, kept whole as it is.
        if (this.acceptsAnyJson(node)) return [code`return true;`];
        // The parser takes the first alternative that decodes: a scalar that fails is skipped;
        // at the first other alternative the answer is its own (no is always safe).
        const statements: Code[] = [];
        for (const option of node.options) {
          if (!isScalar(option.node)) {
            const answer = this.pool.within(option.name, () => this.check(option.node, V));
            return [...statements, code`return ${answer ?? code`true`};`];
          }
          statements.push(code`if (${scalarTest(option.node, V)}) return true;`);
        }
        return [...statements, code`return false;`];
      }
      default:
        return [code`return ${this.check(node, V) ?? code`true`};`];
    }
  }

  /** The name of the key-count function of an object-shaped node. */
  private counter(node: Node, base: ReadonlySet<string> = new Set()): Code {
    const def = node.kind === "ref" ? this.defs.get(node.name)! : undefined;
    if (def && base.size === 0 && isObjectShaped(def.node)) return this.defCounter(def);
    return this.pool.intern("k_", block(COUNT, this.countBody(this.resolve(node), base)));
  }

  /**
   * Statements counting the keys of `v` the node accounts for (`base`: keys an
   * enclosing object already counted; a part that could count one of them
   * again answers -1, so a shared key never hides an unknown one).
   */
  private countBody(node: Node, base: ReadonlySet<string> = new Set()): Code[] {
    if (node.kind === "tagged") return this.taggedCount(node, base);
    if (node.kind !== "object") return [code`return -1;`];
    const own = ownFields(node);
    const names = new Set([...base, ...own.map((f) => f.name)]);
    const statements = this.counted(0, own, node.fields);
    const mixin = node.mixin;
    if (mixin?.kind === "tagged") statements.push(code`const m = ${this.pool.within("mixin", () => this.counter(mixin, names))}(v);`, code`if (m < 0) return -1;`, code`n += m;`);
    else if (mixin) statements.push(code`return -1;`); // an untagged mixin (elicitation scopes): the parser copies
    statements.push(node.keepsUnknown ? code`return Infinity;` : code`return n;`);
    return statements;
  }

  /** The count `n` starting at `start`, and the counting statements of `fields` (the local `x` only when there are some). */
  private counted(start: number, fields: readonly Field[], siblings: readonly Field[]): Code[] {
    return [fields.length ? code`let n = ${start}, x: any;` : code`let n = ${start};`, ...fields.flatMap((f) => this.field(f, siblings))];
  }

  /** Counting statements of one field. */
  private field(f: Field, siblings: readonly Field[]): Code[] {
    const test = this.fieldTest(f, siblings);
    const present = [...(test ? [code`if (!(${test})) return -1;`] : []), code`n++;`];
    return [code`x = ${own(V, f.name)};`, block(code`if (x !== undefined)`, present, f.required ? code` else return -1;` : code``)];
  }

  /** The test of a present field's value `x`, after the parser's `field()` (S23-S26); `undefined` for "always". */
  private fieldTest(f: Field, siblings: readonly Field[]): Code | undefined {
    const dispatch = methodDispatch(withoutNull(f.node), this.defs);
    const hasMethod = siblings.some((s) => s.name === "method" && s.node.kind === "string");
    let test = this.pool.within(f.name, () => (dispatch ? this.byMethod(dispatch, hasMethod) : this.check(f.node, X)));
    if (dispatch && test && f.node.kind === "nullable") test = code`(x === null || ${test})`;
    // S25: default-on-null turns null into the empty value: a change.
    if (emptiedOnNull(f)) test = test ? code`x !== null && ${test}` : code`x !== null`;
    return test;
  }

  /**
   * Statements answering `check` for an object-shaped node. An object without
   * mixin, and each tagged variant whose keys are its tag, its fields and an
   * object payload's fields, is checked by one pass over its keys: each key's
   * value is tested where the key is named, an unknown key is a change (S29),
   * and the required keys are counted. The rest compares `count()` with the
   * number of keys (`exactKeys`).
   */
  private objectBody(node: ObjectNode | TaggedUnionNode, count: () => Code): Code[] {
    if (node.kind === "tagged") return [code`if (!rt.isObject(v)) return false;`, ...this.taggedCheck(node)];
    if (node.mixin) return [code`return rt.isObject(v) && rt.exactKeys(v, ${count()}(v));`];
    return [code`if (!rt.isObject(v)) return false;`, ...this.keyPass([{ fields: node.fields, siblings: node.fields }], [], node.keepsUnknown)];
  }

  /**
   * One `for in` over the keys of `v`: a case per known key testing its value
   * (`tags`: keys already tested by the caller), the default for any other
   * key; then whether every required field was there.
   */
  private keyPass(groups: readonly FieldGroup[], tags: readonly string[], keepsUnknown: boolean): Code[] {
    const cases: Code[] = tags.map((t) => clause(code`case ${t}:`, [code`break;`]));
    let required = 0;
    let tested = false;
    for (const { fields, siblings } of groups) {
      for (const f of fields) {
        const test = this.fieldTest(f, siblings);
        if (f.required) required++;
        if (test) tested = true;
        const steps = [...(test ? [this.onBad(f, test)] : []), ...(f.required ? [code`r++;`] : []), code`break;`];
        cases.push(clause(code`case ${f.name}:`, steps));
      }
    }
    // S29: the parser drops an unknown key unless the object keeps it raw; here it is deleted once the whole check holds.
    cases.push(clause(code`default:`, keepsUnknown ? [code`break;`] : [code`rt.noteUnknown(v, k);`, code`break;`]));
    const loop = block(code`for (const k in v)`, [...(tested ? [code`const x: any = v[k];`] : []), block(code`switch (k)`, cases)]);
    return required ? [code`let r = 0;`, loop, code`return r === ${required};`] : [loop, code`return true;`];
  }

  /** The tag's switch of a tagged node: each known variant, the custom one (S27), the absent tag (S23). */
  private taggedCheck(node: TaggedUnionNode): Code[] {
    const cases = node.variants.map((variant) => clause(code`case ${variant.tagValue}:`, [code`return ${this.variantCheck(node.tag, variant)};`]));
    const other = node.other ? code`${this.other(node.other)}(v) >= 0` : code`false`;
    // S23/absent tag: the parser writes `{}` (no tag) or `{ tag: null }`.
    const absent = node.absent ? code`rt.exactKeys(v, t === undefined ? 0 : t === null ? 1 : -1)` : code`false`;
    return [
      code`const t = ${own(V, node.tag)};`,
      block(code`switch (t)`, [...cases, clause(code`default:`, [code`return typeof t === "string" ? ${other} : ${absent};`])]),
    ];
  }

  /** The check of one known variant of `v`: one key pass when its keys are flat, else its key count. */
  private variantCheck(tag: string, variant: TaggedVariant): Code {
    const payload = variant.payload && this.resolve(variant.payload);
    const names = new Set([tag, ...variant.fields.map((f) => f.name)]);
    const flat = variant.fields.every((f) => f.name !== tag) && (!payload || (payload.kind === "object" && !payload.mixin && !overlaps(this.keyNames(payload), names)));
    if (!flat) return code`rt.exactKeys(v, ${this.variant(tag, variant, new Set())}(v))`;
    const groups: FieldGroup[] = [{ fields: variant.fields, siblings: variant.fields }];
    if (payload?.kind === "object") groups.push({ fields: payload.fields, siblings: payload.fields });
    const keepsUnknown = payload?.kind === "object" && payload.keepsUnknown;
    const check = this.pool.rooted(variant.name, () => this.pool.intern("e_", block(CHECK, this.keyPass(groups, [tag], keepsUnknown))));
    return code`${check}(v)`;
  }

  /**
   * What a key pass does when the value of `f` fails `test`: answer no, or (S23) drop the key in
   * place, like an unknown key. A def's check may have noted unknown keys inside the value before
   * it failed: those notes are forgotten (the value goes whole), so nothing inside it is deleted.
   */
  private onBad(f: Field, test: Code): Code {
    const kept = this.keptWhenMalformed(f);
    if (!kept) return code`if (!(${test})) return false;`;
    const guard = kept !== NEVER ? [code`if (${kept}) return false;`] : [];
    if (this.isRawValue(f)) return block(code`if (!(${test}))`, [...guard, code`rt.noteUnknown(v, k);`]);
    return block(code``, [
      code`const made = rt.notesMade();`,
      block(code`if (!(${test}))`, [...guard, code`rt.forgetNotesSince(made);`, code`rt.noteUnknown(v, k);`]),
    ]);
  }

  /**
   * For an optional field with default-on-error (S23) whose test failed: an expression that is
   * true when the copying parser still keeps the key (a change inside `x`: the check answers
   * no), false when it fails on `x` and so drops the key (`NEVER`: it always drops it);
   * `undefined` when that cannot be told (the check answers no). A scalar, raw or raw-record
   * value fails its test exactly when the parser fails on it; a def is asked (`tolerant.X`,
   * on this rare path). A `null` read as the empty value (S25) is a change.
   */
  private keptWhenMalformed(f: Field): Code | undefined {
    const node = withoutNull(f.node);
    if (!f.tolerance.defaultOnError || f.required || methodDispatch(node, this.defs)) return undefined;
    const raw = this.isRawValue(f);
    if (!raw && node.kind !== "ref") return undefined;
    const decodes = raw ? undefined : code`tolerant.${name((node as { name: string }).name)}(x).ok`;
    if (!emptiedOnNull(f)) return decodes ?? NEVER;
    return decodes ? code`x === null || ${decodes}` : code`x === null`;
  }

  /** Whether the value of `f` is a scalar, raw JSON or a record of raw JSON: its test notes no key inside it. */
  private isRawValue(f: Field): boolean {
    const target = this.resolve(withoutNull(f.node));
    return isScalar(target) || target.kind === "json" || (target.kind === "record" && this.resolve(target.values).kind === "json");
  }

  /** The envelope's params by its `method`, or a response's result by the asked method (raw when none). */
  private byMethod(dispatch: MethodDispatch, hasMethod: boolean): Code {
    const other = dispatch.fallback ? (this.check(dispatch.fallback, V) ?? code`true`) : code`false`;
    const decoder = this.methodSwitch("d_", code`boolean`, dispatch, (def) => code`${name(`e_${def}`)}(v)`, other);
    const method = this.methodOf(hasMethod);
    return hasMethod ? code`${decoder}(${method}, x)` : code`(${method} === undefined || ${decoder}(${method}, x))`;
  }

  private taggedCount(node: TaggedUnionNode, base: ReadonlySet<string>): Code[] {
    const cases = node.variants.map((variant) => clause(code`case ${variant.tagValue}:`, [code`return ${this.variant(node.tag, variant, base)}(v);`]));
    const other = node.other ? code`${this.other(node.other)}(v)` : code`-1`;
    // S23/absent tag: the parser writes `{}` (no tag) or `{ tag: null }`.
    const absent = node.absent && !base.has(node.tag) ? code`t === undefined ? 0 : t === null ? 1 : -1` : code`-1`;
    return [
      code`const t = ${own(V, node.tag)};`,
      block(code`switch (t)`, [...cases, clause(code`default:`, [code`return typeof t === "string" ? ${other} : ${absent};`])]),
    ];
  }

  /** A known variant: its tag, its fields, and its payload's keys. */
  private variant(tag: string, variant: TaggedVariant, base: ReadonlySet<string>): Code {
    return this.pool.rooted(variant.name, () => {
      const names = new Set([...base, tag, ...variant.fields.map((f) => f.name)]);
      const clash = base.has(tag) || variant.fields.some((f) => base.has(f.name) || f.name === tag);
      const statements = this.counted(1, variant.fields, variant.fields);
      const payload = variant.payload;
      if (clash || (payload && (!isObjectShaped(this.resolve(payload)) || overlaps(this.keyNames(payload), names)))) statements.push(code`return -1;`);
      else if (payload) statements.push(code`const m = ${this.counter(payload)}(v);`, code`return m < 0 ? -1 : n + m;`);
      else statements.push(code`return n;`);
      return this.pool.intern("k_", block(COUNT, statements));
    });
  }

  /**
   * The custom variant (S27): declared fields must hold; every key is kept raw. With a mixin the
   * answer is "changed" (the copying parser decides): the mixin's own check would take the
   * variant's other keys for unknown ones and note them for deletion.
   */
  private other(other: OtherVariant): Code {
    return this.pool.rooted(other.name, () => {
      if (other.mixin) return this.pool.intern("k_", block(COUNT, [code`return -1;`]));
      const declared = new Set(other.fields.map((f) => f.name));
      const statements = other.required.filter((r) => !declared.has(r)).map((r) => code`if (${own(V, r)} === undefined) return -1;`);
      for (const f of other.fields) {
        const test = this.pool.within(f.name, () => this.check(f.node, X));
        statements.push(code`x = ${own(V, f.name)};`, code`if (x === undefined ? ${f.required} : ${test ? code`!${test}` : code`false`}) return -1;`);
      }
      return this.pool.intern("k_", block(COUNT, [...(other.fields.length ? [code`let x: any;`] : []), ...statements, code`return Infinity;`]));
    });
  }

  /** Every key an object-shaped node may account for (custom variants keep any key and add none). */
  private keyNames(node: Node): Set<string> {
    const target = this.resolve(node);
    if (target.kind === "object") {
      return new Set([...target.fields.map((f) => f.name), ...(target.mixin ? this.keyNames(target.mixin) : [])]);
    }
    if (target.kind === "tagged") {
      const names = new Set([target.tag]);
      for (const v of target.variants) for (const n of [...v.fields.map((f) => f.name), ...(v.payload ? this.keyNames(v.payload) : [])]) names.add(n);
      return names;
    }
    if (target.kind === "union") return new Set(target.options.flatMap((o) => [...this.keyNames(o.node)]));
    return new Set();
  }
}

/** Fields checked together, and the siblings that say whether a `method` field routes them. */
interface FieldGroup {
  readonly fields: readonly Field[];
  readonly siblings: readonly Field[];
}

/** S25: the parser reads the field's `null` as its empty value (`[]`, `{}`). */
function emptiedOnNull(f: Field): boolean {
  return f.tolerance.defaultOnNull && ["array", "record"].includes(withoutNull(f.node).kind);
}

function isObjectShaped(node: Node): node is ObjectNode | TaggedUnionNode {
  return node.kind === "object" || node.kind === "tagged";
}

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const n of a) if (b.has(n)) return true;
  return false;
}

/** Emits the `parse-owned.ts` module of one surface. */
export function emitParseOwned(model: SurfaceModel): string {
  return new ExactWriter(model).emit();
}
