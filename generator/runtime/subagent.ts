/*
 * `subagentStatus`: OUR non-normative projection of a child session's
 * mirrored `state` (S16, S35). ACP has no subagent status type: a child's
 * lifecycle is only its `StateUpdate` snapshot. This mapping is a convenience
 * for display, documented here and nowhere claimed to be protocol:
 *
 * | mirrored `state`                          | projection                                   |
 * |-------------------------------------------|----------------------------------------------|
 * | absent or `null` (never or no longer reported) | `unconfirmed` (never read as idle, S35) |
 * | `unknown`                                 | `unconfirmed` (stop presenting it as confirmed, S18) |
 * | `running`                                 | `running`                                    |
 * | a custom state (`_x`, future tags)        | `running` (a generic busy state, never idle, S18) |
 * | `requires_action`                         | `suspended`, no result, `interruptIds: []`   |
 * | `idle`, `stopReason: "error"`             | `failed` with the error's `message` and `code`, when reported |
 * | `idle` with another stop reason           | `finished`, `result` = the stop reason       |
 * | `idle` without a (string) stop reason     | `finished` with no result                    |
 *
 * ACP 2.4.0 carries no interrupt ids or suspension results (S16), so
 * `suspended` always has `interruptIds: []` and no `result`; the fields keep
 * the projection's shape stable should a later schema add them.
 */

/** The projection of a child's mirrored state (non-normative, see `subagentStatus`). */
export type SubagentStatusProjection =
  | { readonly status: "running" }
  | { readonly status: "finished"; readonly result?: string }
  | { readonly status: "suspended"; readonly result?: string; readonly interruptIds: readonly string[] }
  | { readonly status: "failed"; readonly message?: string; readonly code?: number }
  | { readonly status: "unconfirmed" };

/** What the projection reads of a stored `SubagentUpdate` entry. */
export interface MirroredSubagent {
  readonly state?: { readonly state: string; readonly stopReason?: unknown; readonly error?: unknown } | null;
}

/**
 * Projects a stored subagent entry (`SessionState.subagents` value) onto
 * Running / Finished{result} / Suspended{result, interruptIds} /
 * Failed{message, code} / Unconfirmed. Our own, non-normative mapping
 * (table above); ACP itself only defines the mirrored `state` snapshot.
 */
export function subagentStatus(entry: MirroredSubagent): SubagentStatusProjection {
  const state = entry.state;
  if (state === undefined || state === null) return { status: "unconfirmed" };
  switch (state.state) {
    case "unknown":
      return { status: "unconfirmed" };
    case "requires_action":
      return { status: "suspended", interruptIds: [] };
    case "idle":
      return idle(state.stopReason, state.error);
    default:
      return { status: "running" };
  }
}

function idle(stopReason: unknown, error: unknown): SubagentStatusProjection {
  if (typeof stopReason !== "string") return { status: "finished" };
  if (stopReason !== "error") return { status: "finished", result: stopReason };
  const details = typeof error === "object" && error !== null ? (error as { message?: unknown; code?: unknown }) : {};
  return {
    status: "failed",
    ...(typeof details.message === "string" ? { message: details.message } : {}),
    ...(typeof details.code === "number" ? { code: details.code } : {}),
  };
}
