/**
 * The persistent map behind the session reducer's entity maps
 * (runtime/pmap.ts), against a native `Map` as the model: random sequences
 * of sets and deletes over a small key space that includes keys whose 32-bit
 * hashes collide (FNV-1a: "k4uzx"/"kf2ad", "k4uzy"/"kf2ae") and `__proto__`
 * (S34). Every version must equal the model at its step, also after later
 * versions were built from it (persistence), in `Map` insertion order. The
 * newest edits of a map sit in a short list in front of its trie and go into
 * it every few edits: runs of one key, branches from old versions and
 * deletes in between are drawn so that every way through it is taken.
 */
import fc from "fast-check";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { PersistentMap, stored } from "../generated/src/runtime/pmap.js";

const KEYS = ["k4uzx", "kf2ad", "k4uzy", "kf2ae", "__proto__", "constructor", "", "a", "b", "0", "10", ...Array.from({ length: 40 }, (_, i) => `id-${i}`)];

type Op = { readonly set: string; readonly value: number } | { readonly del: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ set: fc.constantFrom(...KEYS), value: fc.integer() }),
  fc.record({ del: fc.constantFrom(...KEYS) }),
);

/** The native model of a sequence: `Map` keeps the place of a re-set key and appends a key set after its delete. */
function modelStep(model: Map<string, number>, step: Op): Map<string, number> {
  const next = new Map(model);
  if ("set" in step) next.set(step.set, step.value);
  else next.delete(step.del);
  return next;
}

function expectSame(map: PersistentMap<number>, model: Map<string, number>): void {
  expect(map.size).toBe(model.size);
  expect([...map.entries()]).toEqual([...model.entries()]);
  for (const key of KEYS) {
    expect(map.has(key)).toBe(model.has(key));
    expect(map.get(key)).toBe(model.get(key));
  }
}

describe("PersistentMap", () => {
  it("holds keys whose full hashes collide as separate entries", () => {
    const map = PersistentMap.empty<number>().with("k4uzx", 1).with("kf2ad", 2).with("k4uzy", 3).with("kf2ae", 4);
    expect([...map.entries()]).toEqual([["k4uzx", 1], ["kf2ad", 2], ["k4uzy", 3], ["kf2ae", 4]]);
    const fewer = map.without("k4uzx");
    expect([...fewer.keys()]).toEqual(["kf2ad", "k4uzy", "kf2ae"]);
    expect(fewer.get("kf2ad")).toBe(2);
    expect(map.get("k4uzx")).toBe(1);
    expect(fewer.with("kf2ad", 5).get("kf2ad")).toBe(5);
    expect(fewer.without("kf2ad").without("k4uzy").without("kf2ae").size).toBe(0);
  });

  it("stores __proto__ as a key like any other (S34)", () => {
    const map = PersistentMap.empty<number>().with("__proto__", 1);
    expect(map.get("__proto__")).toBe(1);
    expect(Object.getPrototypeOf(map)).toBe(PersistentMap.prototype);
  });

  it("every version equals the native Map model, before and after later versions are built", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const versions = [PersistentMap.empty<number>()];
        const models = [new Map<string, number>()];
        for (const step of ops) {
          const map = versions[versions.length - 1]!;
          const model = models[models.length - 1]!;
          // A key the map holds is stored as the reducer stores it after `stored` found it: `withHeld`.
          const set = (key: string, value: number) => (model.has(key) ? map.withHeld(key, value) : map.with(key, value));
          versions.push("set" in step ? set(step.set, step.value) : map.without(step.del));
          models.push(modelStep(model, step));
        }
        versions.forEach((map, i) => expectSame(map, models[i]!));
      }),
      { numRuns: 150 },
    );
  });

  it("versions built from any earlier version (branches) equal the model, runs of one key included", () => {
    const step = fc.record({ from: fc.nat(), op, repeat: fc.integer({ min: 1, max: 10 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const versions = [PersistentMap.empty<number>()];
        const models = [new Map<string, number>()];
        for (const { from, op: change, repeat } of steps) {
          // Mostly the newest version (as a reducer does), sometimes an older one.
          const at = from % 4 === 0 ? from % versions.length : versions.length - 1;
          let map = versions[at]!;
          let model = models[at]!;
          for (let r = 0; r < repeat; r++) {
            const one: Op = "set" in change ? { set: change.set, value: change.value + r } : change;
            map = "set" in one ? map.with(one.set, one.value) : map.without(one.del);
            model = modelStep(model, one);
            versions.push(map);
            models.push(model);
          }
        }
        versions.forEach((map, i) => expectSame(map, models[i]!));
      }),
      { numRuns: 60 },
    );
  });
});

describe("PersistentMap lets go of replaced values", () => {
  // The edits in front of the trie keep the values they replaced reachable until they go in: at most 8 edits later.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const collected = async (ref: WeakRef<object>): Promise<boolean> => {
    await new Promise((resolve) => setTimeout(resolve, 0)); // a WeakRef keeps its target alive until the job that made it ends
    gc();
    return ref.deref() === undefined;
  };

  for (const [what, key] of [["by a run of one key", () => "a"], ["by edits of other keys", (i: number) => `k${i}`]] as const) {
    it(`a value in the trie replaced, then 8 more edits ${what}: collected`, async () => {
      let map = PersistentMap.empty<object>().with("a", { big: "x".repeat(1 << 20) });
      const ref = new WeakRef(stored(map, "a")!);
      for (let i = 0; i < 8; i++) map = map.with(`f${i}`, {}); // the edits go into the trie, "a" with them
      map = map.with("a", { small: true });
      for (let i = 0; i < 8; i++) map = map.with(key(i), { i });
      expect(await collected(ref)).toBe(true);
      expect(map.has("a")).toBe(true);
    });
  }
});
