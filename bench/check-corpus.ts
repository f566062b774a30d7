/**
 * One-off check of the benchmark corpus against the schema with ajv.
 *
 * Prints, per message kind and per mutation, how many messages are valid and
 * invalid, and fails (exit 1) when a message meant to be valid is not, when a
 * mutated message meant to be invalid is valid, or when a message cannot be
 * routed to a `$def`.
 *
 * Usage: `npx tsx bench/check-corpus.ts [--seed N] [--size N] [--oracle]`
 * (`--oracle` asserts integer formats as ranges, S30/S31).
 */
import { makeAjv } from "./anchors.js";
import { generateCorpusEntries, numberArg, type CorpusEntry } from "./corpus.js";
import { buildMethodTable, indexRequests, loadSchema, routeMessage } from "./route.js";

interface Tally {
  total: number;
  valid: number;
  invalid: number;
}

function bump(tallies: Map<string, Tally>, key: string, valid: boolean): void {
  const t = tallies.get(key) ?? { total: 0, valid: 0, invalid: 0 };
  t.total++;
  if (valid) t.valid++;
  else t.invalid++;
  tallies.set(key, t);
}

function printTallies(title: string, tallies: Map<string, Tally>): void {
  console.log(`\n| ${title} | total | valid | invalid |\n|---|---:|---:|---:|`);
  const rows = [...tallies].sort((a, b) => b[1].total - a[1].total);
  for (const [key, t] of rows) console.log(`| ${key} | ${t.total} | ${t.valid} | ${t.invalid} |`);
}

function describe(entry: CorpusEntry, errors: unknown): string {
  return `${entry.kind}${entry.mutation ? ` [${entry.mutation}]` : ""}: ${entry.json.slice(0, 300)}\n    ${JSON.stringify(errors)?.slice(0, 400)}`;
}

function main(): void {
  const entries = generateCorpusEntries({ seed: numberArg("seed"), size: numberArg("size") });
  const schema = loadSchema();
  const table = buildMethodTable(schema);
  const validator = makeAjv(schema, { integerFormats: process.argv.includes("--oracle") });
  const messages = entries.map((e) => JSON.parse(e.json) as unknown);
  const requests = indexRequests(messages);

  const byKind = new Map<string, Tally>();
  const byMutation = new Map<string, Tally>();
  const problems: string[] = [];
  let bytes = 0;
  entries.forEach((entry, i) => {
    bytes += Buffer.byteLength(entry.json);
    const route = routeMessage(messages[i], table, requests);
    if (route === undefined) {
      problems.push(`unroutable: ${entry.json.slice(0, 200)}`);
      return;
    }
    const validate = validator(route.def);
    const valid = validate(route.value);
    bump(byKind, `${entry.kind} → ${route.def}`, valid);
    bump(byMutation, entry.mutation ?? "(none)", valid);
    if (valid !== entry.intendedValid) problems.push(`${entry.intendedValid ? "should be valid" : "should be invalid"}: ${describe(entry, validate.errors)}`);
  });

  const valid = [...byKind.values()].reduce((n, t) => n + t.valid, 0);
  console.log(`corpus: ${entries.length} messages, ${(bytes / 1e6).toFixed(2)} MB, ${valid} valid, ${entries.length - valid} invalid`);
  printTallies("kind → $def", byKind);
  printTallies("mutation", byMutation);
  if (problems.length > 0) {
    console.log(`\n${problems.length} problem(s); first 20:`);
    for (const p of problems.slice(0, 20)) console.log(`- ${p}`);
    process.exitCode = 1;
  } else console.log("\nall messages match their intended validity");
}

main();
