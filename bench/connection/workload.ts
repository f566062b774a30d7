/**
 * The `session/update` payloads streamed in bench/connection.bench.ts: the
 * updates of the benchmark corpus (bench/corpus.ts) that are valid ACP v2
 * unstable (`validate.SessionUpdate`), so neither side rejects any of them,
 * each with the corpus session it belongs to (a few hundred updates each).
 */
import { validate, type SessionUpdate } from "../../generated/src/v2/unstable/index.js";
import { generateCorpus } from "../corpus.js";

/** One streamed update and the corpus session it belongs to. */
export interface BenchUpdate {
  readonly session: string;
  readonly update: SessionUpdate;
}

/** The first `count` valid session updates of the corpus (all of them by default). */
export function benchUpdates(count = Infinity): BenchUpdate[] {
  const updates: BenchUpdate[] = [];
  for (const line of generateCorpus()) {
    if (updates.length >= count) break;
    const message = JSON.parse(line) as { method?: string; params?: { sessionId?: unknown; update?: unknown } };
    if (message.method !== "session/update") continue;
    const checked = validate.SessionUpdate(message.params?.update);
    if (checked.ok) updates.push({ session: String(message.params?.sessionId), update: checked.value });
  }
  return updates;
}
