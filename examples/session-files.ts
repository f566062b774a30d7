/**
 * A `SessionKeeper` (examples/echo-agent.ts) over a directory that every
 * server process shares: each session's `SessionState` (built by
 * `reduceSession` from the updates the agent sends) is saved as
 * `<dir>/<sessionId>.json` (`sessionStateToJSON`) after every update, written
 * to a temporary file and renamed over the old one, so a reader never sees a
 * half-written file. Another process restores the session from it
 * (`sessionStateFromJSON`) when the session is resumed there.
 */
import { randomUUID } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { emptySessionState, reduceSession, type SessionState, sessionStateFromJSON, sessionStateToJSON } from "acp-bindings/v2";
import type { SessionKeeper } from "./echo-agent.js";

/** Session ids this keeper makes and reads: safe as file names (no path separator, no dot). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Keeps sessions in `dir`; new session ids start with `prefix`. A failed write goes to `onError` (default: stderr). */
export function sessionFiles(dir: string, prefix = "session", onError = (error: unknown) => console.error(`session store: ${String(error)}`)): SessionKeeper {
  const states = new Map<string, SessionState>();
  /** Per session: the last write queued (writes of one session happen in order). */
  const writes = new Map<string, Promise<void>>();
  let temporaries = 0;
  const fileOf = (sessionId: string): string => join(dir, `${sessionId}.json`);

  async function save(sessionId: string, state: SessionState): Promise<void> {
    const temporary = join(dir, `.${sessionId}.${process.pid}.${++temporaries}.tmp`);
    await writeFile(temporary, JSON.stringify(sessionStateToJSON(state)));
    await rename(temporary, fileOf(sessionId)); // atomic: readers see the old file or the new one
  }

  return {
    newId: () => `${prefix.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80)}-${randomUUID()}`,
    record(sessionId, update) {
      if (!SAFE_ID.test(sessionId)) return;
      const state = reduceSession(states.get(sessionId) ?? emptySessionState(), update);
      states.set(sessionId, state);
      writes.set(sessionId, (writes.get(sessionId) ?? Promise.resolve()).then(() => save(sessionId, state)).catch(onError));
    },
    async load(sessionId) {
      if (!SAFE_ID.test(sessionId)) return undefined;
      await writes.get(sessionId); // this process's own writes land first
      const text = await readFile(fileOf(sessionId), "utf8").catch(() => undefined);
      if (text === undefined) return undefined;
      const restored = sessionStateFromJSON(JSON.parse(text));
      if (!restored.ok) throw new Error(`${fileOf(sessionId)}: ${restored.issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`);
      states.set(sessionId, restored.value); // later updates fold into the restored state
      return restored.value;
    },
  };
}
