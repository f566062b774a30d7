/**
 * What the example agents (examples/v1-agent.ts, examples/echo-agent.ts) share:
 * the text of a prompt, the sessions an agent knows (for `session/list`), and a
 * cancellable pause between the steps of a turn.
 */

/** The text of a prompt's text blocks, joined by spaces. */
export function promptText(prompt: readonly { readonly type: string; readonly text?: string }[]): string {
  return prompt.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join(" ");
}

/** What `session/list` tells of a session: where it works, its title, when it last changed. */
export interface SessionListing {
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  title?: string;
  updatedAt: string;
}

/** The sessions an agent knows, listed newest first, optionally only those in `cwd`. */
export function listSessions(sessions: Iterable<SessionListing>, cwd?: string | null): SessionListing[] {
  return [...sessions].filter((session) => cwd == null || session.cwd === cwd).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

/** A session's listing with a fresh `updatedAt`, and its title from its first prompt when it has none yet. */
export function touch(session: SessionListing, promptText?: string): void {
  session.updatedAt = new Date().toISOString();
  if (session.title === undefined && promptText) session.title = promptText.slice(0, 60);
}

/** A short wait between the steps of a turn, so that a turn takes long enough to be cancelled; rejects once `signal` aborts. */
export function pause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("cancelled"));
    const cancelled = (): void => (clearTimeout(timer), reject(new Error("cancelled")));
    // The listener goes with the wait: a turn's signal would otherwise collect one per step.
    const timer = setTimeout(() => (signal.removeEventListener("abort", cancelled), resolve()), 5);
    signal.addEventListener("abort", cancelled, { once: true });
  });
}
