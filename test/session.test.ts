/**
 * reduceSession and emptySessionState (S1-S22, S34, S35) against our rulebook
 * scenarios (test/fixtures/session): each case folds its wire updates into a
 * new session and compares the slots it names. One test per case and
 * surface, named with the rule id. Updates are deep-frozen; every
 * intermediate state must stay unchanged by later updates; Object.prototype
 * must not gain a key.
 */
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { loadFixtures } from "./support/fixtures.js";
import { canonicalJson } from "./support/json.js";
import { ABSENT, deepFreeze, plainState, sessionOf } from "./support/state.js";
import { ENTRIES, parserOf } from "./support/surfaces.js";

interface SessionCase {
  readonly updates: readonly unknown[];
  /** Slots to compare: maps as objects keyed by id, `"<absent>"` for a singleton never reported. */
  readonly expect: Readonly<Record<string, unknown>>;
  readonly parseFirst?: boolean;
}

/**
 * S36 steps between updates: `{ "$prompt": [blocks], "$messageId"?: id }` is a prompt the client
 * sent (`reducePrompt`, with the v2 answer's `messageId`); `{ "$restore": true }` saves the state
 * as JSON text and restores it.
 */
function step(surface: Surface, state: object, update: unknown): object {
  const { reduceSession, reducePrompt, sessionStateToJSON, sessionStateFromJSON } = ENTRIES[surface] as unknown as Record<string, (...args: unknown[]) => object>;
  const item = update as Record<string, unknown>;
  if (Object.hasOwn(item, "$prompt")) return reducePrompt!(state, { sessionId: "s", prompt: item["$prompt"] }, { messageId: item["$messageId"] });
  if (!Object.hasOwn(item, "$restore")) return reduceSession!(state, update);
  const restored = sessionStateFromJSON!(JSON.parse(JSON.stringify(sessionStateToJSON!(state)))) as unknown as { ok: boolean; value: object; issues?: unknown };
  if (!restored.ok) throw new Error(`sessionStateFromJSON refused the saved state: ${JSON.stringify(restored.issues)}`);
  return restored.value;
}

/** S8: `parseFirst` updates go through `parse.SessionUpdate`. */
function decoded(surface: Surface, c: SessionCase): unknown[] {
  if (!c.parseFirst) return [...c.updates];
  return c.updates.map((u) => {
    if (Object.hasOwn(u as object, "$prompt") || Object.hasOwn(u as object, "$restore")) return u;
    const parsed = parserOf(surface, "SessionUpdate")(u);
    if (!parsed.ok) throw new Error(`parse.SessionUpdate rejected ${JSON.stringify(u)}: ${JSON.stringify(parsed.issues)}`);
    return parsed.value;
  });
}

for (const fixture of loadFixtures<SessionCase>("session")) {
  describe(`${fixture.rule}: reduceSession`, () => {
    for (const c of fixture.cases) {
      for (const surface of c.surfaces) {
        it(`${fixture.rule} ${surface}: ${c.name}`, () => {
          const { emptySessionState } = sessionOf(surface);
          const updates = deepFreeze(decoded(surface, c));
          const states = [emptySessionState()];
          for (const update of updates) states.push(step(surface, states[states.length - 1]!, update));
          const snapshots = states.map((s) => canonicalJson(plainState(s)));
          const final = plainState(states[states.length - 1]!);
          for (const [slot, expected] of Object.entries(c.expect)) {
            if (expected === ABSENT) expect(final[slot], slot).toBeUndefined();
            else expect(canonicalJson(final[slot]), slot).toBe(canonicalJson(expected));
          }
          // Purity: no later update changed an earlier state.
          expect(states.map((s) => canonicalJson(plainState(s)))).toEqual(snapshots);
          expect(Object.keys(Object.prototype)).toEqual([]);
        });
      }
    }
  });
}
