/**
 * Connection fuzz bench (issue 36): mutated ndjson sessions fed to an agent and
 * to a client (`connectAgent` / `connectClient` of v2) over Node streams and Web
 * streams, a quarter of the inputs each; the engine and its judge are
 * test/support/connection-fuzz.ts (test/connection-fuzz.test.ts runs a few
 * thousand of the same inputs in `npm test`).
 *
 *   npx tsx bench/connection-fuzz.bench.ts [--inputs 100000] [--seed 36]
 *
 * Counts, and exits 1 unless all are 0: inputs after which `initialize` was not
 * answered, inputs whose answers differ from what JSON-RPC 2.0 asks of their
 * lines (an answer to a notification or a response, a request answered twice or
 * never), throws out of the feeding, and exceptions or rejections that escaped to
 * the process. Also prints how the inputs were handled (lines, `onError`
 * reports) and the time taken.
 */
import { performance } from "node:perf_hooks";
import { numberArg } from "./corpus.js";
import { expectedAnswers, fuzzInput, multisetDifference, Rng, runInput, sessionFor, TARGETS } from "../test/support/connection-fuzz.js";

const inputs = numberArg("inputs") ?? 100_000;
const seed = numberArg("seed") ?? 36;
const escaped: unknown[] = [];
process.on("unhandledRejection", (error) => void escaped.push(error));
process.on("uncaughtException", (error) => void escaped.push(error));

const counts = { unanswered: 0, wrongAnswers: 0, thrown: 0, answers: 0, reports: 0, bytes: 0 };
const firstFailures: string[] = [];
const rngs = TARGETS.map((_, i) => new Rng(seed + i));
const started = performance.now();
for (let n = 0; n < inputs; n++) {
  const t = n % TARGETS.length;
  const target = TARGETS[t]!;
  const input = fuzzInput(sessionFor(target), rngs[t]!);
  const outcome = await runInput(input, target);
  const difference = multisetDifference(expectedAnswers(input.bytes), outcome.answered);
  counts.bytes += input.bytes.length;
  counts.answers += outcome.answered.length;
  counts.reports += outcome.reports;
  if (!outcome.probeAnswered) counts.unanswered++;
  if (difference !== "") counts.wrongAnswers++;
  if (outcome.thrown !== undefined) counts.thrown++;
  const failed = !outcome.probeAnswered || difference !== "" || outcome.thrown !== undefined;
  if (failed && firstFailures.length < 5) firstFailures.push(`input ${n} (${target.end}, ${target.streams}): ${difference || "initialize not answered"}`);
  if ((n + 1) % 10_000 === 0) console.error(`… ${n + 1} inputs, ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const seconds = (performance.now() - started) / 1000;
const format = (n: number) => n.toLocaleString("en-US");
console.log(`total: ${format(inputs)} inputs (seed ${seed}; agent and client, Node and Web streams, a quarter each), ${format(counts.bytes)} bytes, in ${seconds.toFixed(1)} s (${format(Math.round(inputs / seconds))} inputs/s)`);
console.log(`handled: ${format(counts.answers)} answers as JSON-RPC 2.0 asks, ${format(counts.reports)} onError reports`);
console.log(`initialize unanswered after an input: ${counts.unanswered}; inputs answered wrongly: ${counts.wrongAnswers}; throws: ${counts.thrown}; escaped to the process: ${escaped.length}`);
for (const failure of firstFailures) console.log(`  ${failure}`);
process.exit(counts.unanswered + counts.wrongAnswers + counts.thrown + escaped.length === 0 ? 0 : 1);
