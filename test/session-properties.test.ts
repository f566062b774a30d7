/**
 * Property-based tests (fast-check) of reduceSession and apply.X on every
 * surface. Streams are drawn from the wire updates of our rulebook scenarios
 * (parsed first), with ids re-drawn from a small pool that includes
 * `__proto__` and `constructor` so entities collide and keys are hostile.
 * - S34/purity: updates are deep-frozen, nothing throws, no earlier state
 *   changes, Object.prototype never gains a key;
 * - S18 and upserts: every update that is not a chunk or an event is
 *   idempotent (applying it twice equals applying it once), snapshots included;
 * - S8: a malformed field that parse.X drops leaves apply.X a no-op;
 * - S12: terminal output is the base64 of all chunk bytes, in order;
 * - v2/unstable: the end state equals that of the hand-written baseline of
 *   the benchmark (bench/naive-reducer.ts), an independent implementation.
 */
import fc from "fast-check";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { Semantics, Surface } from "../generator/ir.js";
import { naiveEmpty, naiveReduce, naiveReduceInPlacePushing } from "../bench/naive-reducer.js";
import { decodeBase64, decodePortable, encodePortable } from "../generated/src/runtime/base64.js";
import { loadSemanticsTable, resolveSemantics, SEMANTICS_FILE } from "../generator/overlay.js";
import { SURFACES } from "../generator/surfaces.js";
import { loadFixtures } from "./support/fixtures.js";
import { pinnedIR, SCHEMA_DIR } from "./support/ir.js";
import { canonicalJson } from "./support/json.js";
import { deepFreeze, member, plainState, sessionOf } from "./support/state.js";
import { parserOf } from "./support/surfaces.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every object or array inside `value` is frozen (what states share is immutable). */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

const IDS = ["a", "b", "__proto__", "constructor", "toString"];
const ID_KEYS = ["toolCallId", "messageId", "terminalId", "compactionId", "planId", "sessionId"];

function semanticsOf(surface: Surface): Semantics {
  const ir = pinnedIR(surface);
  return resolveSemantics(ir, loadSemanticsTable(`${SCHEMA_DIR}/${SEMANTICS_FILE}`), ir.file);
}

/** The parsed wire updates of every session scenario of a surface. */
function seedUpdates(surface: Surface): Json[] {
  const out: Json[] = [];
  for (const file of loadFixtures<{ updates: unknown[] }>("session")) {
    for (const c of file.cases) {
      if (!c.surfaces.includes(surface)) continue;
      for (const update of c.updates) {
        const parsed = parserOf(surface, "SessionUpdate")(update);
        if (parsed.ok) out.push(parsed.value as Json);
      }
    }
  }
  return out;
}

/** `update` with every id (also inside `plan`) replaced by `id`. */
function withId(update: Json, id: string): Json {
  const out: Json = JSON.parse(JSON.stringify(update));
  for (const key of ID_KEYS) if (Object.hasOwn(out, key)) out[key] = id;
  const plan = out["plan"];
  if (typeof plan === "object" && plan !== null && Object.hasOwn(plan, "planId")) (plan as Json)["planId"] = id;
  return out;
}

function streamOf(surface: Surface): fc.Arbitrary<Json[]> {
  const seeds = seedUpdates(surface);
  return fc.array(fc.tuple(fc.constantFrom(...seeds), fc.constantFrom(...IDS)).map(([u, id]) => withId(u, id)), { maxLength: 25 });
}

const fold = (surface: Surface, updates: readonly Json[]) => {
  const { emptySessionState, reduceSession } = sessionOf(surface);
  return updates.reduce<object>((s, u) => reduceSession(s, u), emptySessionState());
};

describe("reduceSession properties", () => {
  for (const { surface } of SURFACES) {
    const stream = streamOf(surface);
    const semantics = semanticsOf(surface);
    const repeatable = new Set(semantics.routes.filter((r) => r.op !== "append" && r.op !== "event").map((r) => r.tag));

    it(`S34 ${surface}: frozen updates, unchanged earlier states, stored values frozen, no prototype pollution`, () => {
      fc.assert(
        fc.property(stream, (updates) => {
          const { emptySessionState, reduceSession } = sessionOf(surface);
          deepFreeze(updates);
          const before = canonicalJson(updates);
          const states = [emptySessionState()];
          const snapshots = [canonicalJson(plainState(states[0]!))];
          for (const u of updates) {
            states.push(reduceSession(states[states.length - 1]!, u));
            snapshots.push(canonicalJson(plainState(states[states.length - 1]!)));
          }
          expect(states.map((s) => canonicalJson(plainState(s)))).toEqual(snapshots);
          expect(Object.values(plainState(states[states.length - 1]!)).every((slot) => Object.values(slot as object).every(deeplyFrozen))).toBe(true);
          expect(canonicalJson(updates)).toBe(before);
          expect(Object.keys(Object.prototype)).toEqual([]);
          expect(({} as Json)["polluted"]).toBeUndefined();
        }),
        { numRuns: 150 },
      );
    });

    it(`S18 ${surface}: snapshots and upserts are idempotent (twice equals once)`, () => {
      fc.assert(
        fc.property(stream, fc.nat(), (updates, pick) => {
          const candidates = updates.filter((u) => repeatable.has(String(u["sessionUpdate"])));
          fc.pre(candidates.length > 0);
          const u = candidates[pick % candidates.length]!;
          const { reduceSession } = sessionOf(surface);
          const once = reduceSession(fold(surface, updates), u);
          const twice = reduceSession(once, u);
          expect(canonicalJson(plainState(twice))).toBe(canonicalJson(plainState(once)));
        }),
        { numRuns: 150 },
      );
    });
  }

  it("S1-S21 v2/unstable: the same end state as the hand-written baseline reducers", () => {
    // The baseline assigns `_meta` keys plainly, so streams with a `__proto__` key (S34) are ours alone.
    const plainKeys = streamOf("v2/unstable").filter((updates) => !JSON.stringify(updates).includes('"__proto__":'));
    fc.assert(
      fc.property(plainKeys, (updates) => {
        const naive = updates.reduce((s, u) => naiveReduce(s, u), naiveEmpty());
        expect(canonicalJson(plainState(fold("v2/unstable", updates)))).toBe(canonicalJson(plainState(naive)));
        // The bench's other in-place baseline, which pushes chunks onto its lists, leaves its updates untouched (they are frozen) and ends alike.
        const frozen = updates.map((u) => deepFreeze(structuredClone(u)));
        const pushed = frozen.reduce((s, u) => naiveReduceInPlacePushing(s, u), naiveEmpty());
        expect(canonicalJson(plainState(pushed))).toBe(canonicalJson(plainState(naive)));
      }),
      { numRuns: 300 },
    );
  });

  it("S12 v2/unstable: terminal output is the base64 of all chunk bytes, in order", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 7 }), { maxLength: 12 }), (chunks) => {
        const updates = chunks.map((bytes) => ({ sessionUpdate: "terminal_output_chunk", terminalId: "t", data: Buffer.from(bytes).toString("base64") }));
        const state = fold("v2/unstable", updates) as { terminals: ReadonlyMap<string, { output?: { data: string } }> };
        const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
        expect(state.terminals.get("t")?.output?.data).toBe(chunks.length ? all.toString("base64") : undefined);
      }),
    );
  });

  it("S12 v2/unstable: every kept state holds its own output, with snapshots, unpadded chunks, two terminals and a branch from any state", () => {
    type Terminals = { terminals: ReadonlyMap<string, { output?: { data: string } }> };
    const step = fc.record({
      terminalId: fc.constantFrom("t", "u"),
      snapshot: fc.boolean(),
      bytes: fc.uint8Array({ maxLength: 8 }),
      padded: fc.boolean(),
    });
    const text = (bytes: Uint8Array, padded: boolean) => {
      const base64 = Buffer.from(bytes).toString("base64");
      return padded ? base64 : base64.replace(/=+$/, "");
    };
    fc.assert(
      fc.property(fc.array(step, { maxLength: 16 }), fc.nat(), step, (steps, at, branch) => {
        const { emptySessionState, reduceSession } = sessionOf("v2/unstable");
        // The model: a snapshot's data is kept as sent (S12); a chunk's bytes are appended and the whole re-encoded.
        const model = (outputs: Map<string, string>, s: (typeof steps)[number]) => {
          const data = text(s.bytes, s.padded);
          const next = new Map(outputs);
          if (s.snapshot) next.set(s.terminalId, data);
          else next.set(s.terminalId, Buffer.concat([Buffer.from(outputs.get(s.terminalId) ?? "", "base64"), Buffer.from(s.bytes)]).toString("base64"));
          return next;
        };
        const update = (s: (typeof steps)[number]) =>
          s.snapshot
            ? { sessionUpdate: "terminal_update", terminalId: s.terminalId, output: { data: text(s.bytes, s.padded) } }
            : { sessionUpdate: "terminal_output_chunk", terminalId: s.terminalId, data: text(s.bytes, s.padded) };
        const states: Terminals[] = [emptySessionState() as Terminals];
        const expected: Map<string, string>[] = [new Map()];
        for (const s of steps) {
          states.push(reduceSession(states.at(-1)!, update(s)) as Terminals);
          expected.push(model(expected.at(-1)!, s));
        }
        // A branch from an earlier state extends that state's output, not the latest one.
        const from = at % states.length;
        const branched = reduceSession(states[from]!, update(branch)) as Terminals;
        const outputsOf = (state: Terminals) => new Map([...state.terminals].flatMap(([id, t]) => (t.output ? [[id, t.output.data] as const] : [])));
        expect(outputsOf(branched)).toEqual(model(expected[from]!, branch));
        states.forEach((state, i) => expect(outputsOf(state)).toEqual(expected[i]));
      }),
      { numRuns: 300 },
    );
  });
});

describe("S11 chunks that append to a list", () => {
  type Messages = { agentMessages: ReadonlyMap<string, { content: readonly { text: string }[] }> };
  const step = fc.record({
    messageId: fc.constantFrom("m", "n"),
    kind: fc.constantFrom("chunk", "chunk", "chunk", "replace", "clear"),
    text: fc.string({ maxLength: 3 }),
    read: fc.boolean(),
  });
  type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;
  const update = (s: Step) => {
    const block = { type: "text", text: s.text };
    if (s.kind === "chunk") return { sessionUpdate: "agent_message_chunk", messageId: s.messageId, content: block };
    return { sessionUpdate: "agent_message", messageId: s.messageId, content: s.kind === "clear" ? null : [block, block] };
  };
  // The model (S11): a chunk appends one block; an update's `content` replaces the list, `null` clears it.
  const model = (lists: ReadonlyMap<string, readonly string[]>, s: Step) => {
    const next = new Map(lists);
    const old = lists.get(s.messageId) ?? [];
    next.set(s.messageId, s.kind === "chunk" ? [...old, s.text] : s.kind === "clear" ? [] : [s.text, s.text]);
    return next;
  };
  const listsOf = (state: Messages) => new Map([...state.agentMessages].map(([id, m]) => [id, m.content.map((b) => b.text)]));

  for (const owned of [false, true]) {
    const name = owned ? "reduceSessionOwned" : "reduceSession";
    it(`S11 v2/unstable ${name}: every kept state holds its own lists, read or not, with replacements and two branches from any state`, () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 24 }), fc.nat(), step, step, fc.boolean(), (steps, at, first, second, readFirst) => {
          const session = sessionOf("v2/unstable") as unknown as { emptySessionState(): Messages; reduceSession(s: Messages, u: unknown): Messages; reduceSessionOwned(s: Messages, u: unknown): Messages };
          const reduce = (state: Messages, s: Step) => (owned ? session.reduceSessionOwned(state, update(s)) : session.reduceSession(state, deepFreeze(update(s))));
          const states: Messages[] = [session.emptySessionState()];
          const expected: ReadonlyMap<string, readonly string[]>[] = [new Map()];
          const seen: (object | undefined)[] = [undefined];
          for (const s of steps) {
            const next = reduce(states.at(-1)!, s);
            // A read in between publishes the entity; appends go on from what was read.
            seen.push(s.read ? next.agentMessages.get(s.messageId) : undefined);
            states.push(next);
            expected.push(model(expected.at(-1)!, s));
          }
          // Two branches from one earlier state: each extends that state's lists, neither sees the other.
          const from = at % states.length;
          // Read (published) after later states grew its lists, or not read at all.
          if (readFirst) expect(listsOf(states[from]!)).toEqual(expected[from]);
          const one = reduce(states[from]!, first);
          const two = reduce(states[from]!, second);
          expect(listsOf(two)).toEqual(model(expected[from]!, second));
          expect(listsOf(one)).toEqual(model(expected[from]!, first));
          states.forEach((state, i) => {
            expect(listsOf(state)).toEqual(expected[i]);
            for (const m of state.agentMessages.values()) expect(deeplyFrozen(m)).toBe(true);
            // What a state handed out once, it hands out again: the same frozen object.
            if (seen[i] !== undefined) expect(state.agentMessages.get(steps[i - 1]!.messageId)).toBe(seen[i]);
          });
        }),
        { numRuns: 300 },
      );
    });
  }

  it("S10 v2/unstable: an update that keeps a tool call's content shares that content array with the state before it, read first or after", () => {
    type Tools = { toolCalls: ReadonlyMap<string, { content: readonly unknown[] }> };
    const { emptySessionState, reduceSession } = sessionOf("v2/unstable") as unknown as { emptySessionState(): Tools; reduceSession(s: Tools, u: unknown): Tools };
    const chunk = (text: string) => ({ sessionUpdate: "tool_call_content_chunk", toolCallId: "t", content: { type: "content", content: { type: "text", text } } });
    for (const readFirst of [false, true]) {
      const before = [chunk("1"), chunk("2")].reduce(reduceSession, emptySessionState());
      if (readFirst) before.toolCalls.get("t");
      const after = reduceSession(before, { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" });
      expect(after.toolCalls.get("t")!.content).toBe(before.toolCalls.get("t")!.content);
      expect(after.toolCalls.get("t")!.content).toHaveLength(2);
    }
  });

  it("S11 v2/unstable: a list read early keeps none of the later chunks alive once the newer states are gone", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = async () => {
      // A WeakRef's target stays alive until the current job ends: let it end first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const { emptySessionState, reduceSession } = sessionOf("v2/unstable") as unknown as { emptySessionState(): Messages; reduceSession(s: Messages, u: unknown): Messages };
    const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } });
    let state: Messages | undefined = reduceSession(emptySessionState(), chunk("first"));
    // Read while it ends its store: the next chunk goes on with that store.
    const early = state.agentMessages.get("m")!.content;
    const before = await heap();
    for (let i = 0; i < 50_000; i++) state = reduceSession(state!, chunk(`${"x".repeat(200)}${i}`));
    expect(state!.agentMessages.get("m")!.content).toHaveLength(50_001);
    state = undefined;
    // 50,000 blocks of 200 characters take some 15 MB; what the early array alone holds is its one block.
    expect((await heap()) - before).toBeLessThan(4e6);
    expect(early.map((b) => b.text)).toEqual(["first"]);
  });

  it("S11 v2/unstable: a message of 20,000 chunks, every state kept, each state's list its own", () => {
    const { emptySessionState, reduceSession } = sessionOf("v2/unstable") as unknown as { emptySessionState(): Messages; reduceSession(s: Messages, u: unknown): Messages };
    const states: Messages[] = [emptySessionState()];
    for (let i = 0; i < 20_000; i++) states.push(reduceSession(states.at(-1)!, { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: String(i) } }));
    for (const i of [1, 2, 777, 10_000, 19_999, 20_000]) {
      const content = states[i]!.agentMessages.get("m")!.content;
      expect(content.length).toBe(i);
      expect(content.at(-1)!.text).toBe(String(i - 1));
    }
  });
});

describe("a state's own lists (timeline, notices) as they grow", () => {
  it("v2/unstable: every kept state holds its own timeline and notices past 64 items, with branches from any state, twice", () => {
    type Lists = { timeline: readonly { kind: string; id: string }[]; notices: readonly { title: string }[] };
    const { emptySessionState, reduceSession } = sessionOf("v2/unstable") as unknown as { emptySessionState(): Lists; reduceSession(s: Lists, u: unknown): Lists };
    // Each step either creates a message (the timeline grows) or adds a notice.
    const update = (i: number) => (i % 3 === 0 ? { sessionUpdate: "notice", severity: "info", title: `n${i}` } : { sessionUpdate: "agent_message", messageId: `m${i}` });
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 220 }), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), (count, branchPoints) => {
        const states: Lists[] = [emptySessionState()];
        for (let i = 0; i < count; i++) states.push(reduceSession(states.at(-1)!, update(i)));
        const model = (steps: readonly number[]) => ({
          timeline: steps.filter((i) => i % 3 !== 0).map((i) => `m${i}`),
          notices: steps.filter((i) => i % 3 === 0).map((i) => `n${i}`),
        });
        const listsOf = (state: Lists) => ({ timeline: state.timeline.map((e) => e.id), notices: state.notices.map((n) => n.title) });
        const steps = (n: number) => Array.from({ length: n }, (_, i) => i);
        // Branches: from any kept state, each twice, with steps numbered past the stream's.
        for (const at of branchPoints) {
          const from = at % states.length;
          for (const extra of [1000 + 3 * from, 1001 + 3 * from]) {
            const branched = reduceSession(states[from]!, update(extra));
            expect(listsOf(branched)).toEqual(model([...steps(from), extra]));
            expect(Object.isFrozen(branched.timeline) && Object.isFrozen(branched.notices)).toBe(true);
          }
        }
        states.forEach((state, n) => expect(listsOf(state)).toEqual(model(steps(n))));
      }),
      { numRuns: 60 },
    );
  });
});

describe("S12 base64", () => {
  it("S12 the portable codec (runtimes without Buffer) agrees with Buffer, padded or not", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const text = Buffer.from(bytes).toString("base64");
        expect(encodePortable(bytes)).toBe(text);
        expect(Buffer.from(decodePortable(text)).equals(Buffer.from(bytes))).toBe(true);
        expect(Buffer.from(decodePortable(text.replace(/=+$/, ""))).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it("S12 text that is not base64 is refused, and a chunk of it changes nothing", () => {
    for (const bad of ["a", "abcde", "ab=c", "a===", "ab c", "é", "abc==", "=", "YQ="]) expect(decodeBase64(bad), bad).toBeUndefined();
    const { emptySessionState, reduceSession } = sessionOf("v2/unstable");
    const before = reduceSession(emptySessionState(), { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "YWI=" });
    expect(reduceSession(before, { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "not base64!" })).toBe(before);
  });
});

describe("apply properties", () => {
  interface StoredCase {
    readonly fn: string;
    readonly stored: unknown;
  }
  for (const { surface } of SURFACES) {
    const upserts = semanticsOf(surface).upserts.filter((u) => u.patch);
    const stored = loadFixtures<StoredCase>("apply").flatMap((f) =>
      f.cases.filter((c) => c.surfaces.includes(surface) && upserts.some((u) => u.type === c.fn) && isObject(c.stored)).map((c) => c as StoredCase & { stored: Json }),
    );

    it(`S8 ${surface}: a malformed field dropped by parse.X leaves apply.X a no-op`, () => {
      const arbitrary = fc.constantFrom(...stored).chain((c) => {
        const upsert = upserts.find((u) => u.type === c.fn)!;
        const fields = upsert.fields.map((f) => f.name).filter((name) => name !== upsert.key);
        return fc.record({ c: fc.constant(c), field: fc.constantFrom(...fields), value: fc.jsonValue({ maxDepth: 2 }) });
      });
      let checked = 0;
      fc.assert(
        fc.property(arbitrary, ({ c, field, value }) => {
          const key = upserts.find((u) => u.type === c.fn)!.key;
          const update = { ...(key ? { [key]: c.stored[key] } : {}), [field]: value };
          const parsed = parserOf(surface, c.fn)(update);
          fc.pre(parsed.ok && !Object.hasOwn(parsed.value as Json, field));
          checked++;
          const apply = member<(s: unknown, u: unknown) => unknown>(surface, "apply", c.fn);
          expect(canonicalJson(apply(deepFreeze(c.stored), deepFreeze(parsed.value)))).toBe(canonicalJson(c.stored));
        }),
        { numRuns: 300 },
      );
      expect(checked).toBeGreaterThan(0);
    });
  }
});
