/**
 * What the README's "Connection" section must say, derived from the generated
 * method tables and the commands the tests run, so the README cannot drift.
 */

interface Row {
  readonly method: string;
  readonly side: string;
  readonly kind: string;
}

/** The README commands of the connection section, each run by a test exactly as written. */
export const CONNECTION_COMMANDS = {
  agent: "npx tsx examples/v2-agent.ts",
  client: "npx tsx examples/v2-client.ts",
  clientOnSdkAgent: "npx tsx examples/v2-client.ts npx tsx test/interop/sdk-agent.ts",
  bench: "npx tsx bench/connection.bench.ts",
  benchQuick: "npx tsx bench/connection.bench.ts --rounds 1 --warmup 0 --trips 100 --updates 500",
  fuzzBench: "npx tsx bench/connection-fuzz.bench.ts",
  fuzzBenchQuick: "npx tsx bench/connection-fuzz.bench.ts --inputs 400",
} as const;

/** The v1 examples' commands, each run by test/interop.test.ts exactly as written. */
export const V1_COMMANDS = {
  agent: "npx tsx examples/v1-agent.ts",
  client: "npx tsx examples/v1-client.ts",
  clientOnSdkAgent: "npx tsx examples/v1-client.ts npx tsx test/interop/sdk-agent-v1.ts",
} as const;

/** The method list of every surface, as the README shows it: one table per surface, one row per side and kind. */
export function methodsMarkdown(entries: Record<string, { readonly methods: readonly Row[] }>): string {
  const parts: string[] = [];
  for (const [surface, entry] of Object.entries(entries)) {
    parts.push(`\`${surface}\`:\n\n| handled by | kind | methods |\n|---|---|---|`);
    const groups = new Map<string, string[]>();
    for (const row of entry.methods) {
      const key = `| ${row.side} | ${row.kind} |`;
      groups.set(key, [...(groups.get(key) ?? []), `\`${row.method}\``]);
    }
    for (const [key, methods] of groups) parts.push(`${key} ${methods.join(", ")} |`);
    parts.push("");
  }
  return parts.join("\n").trimEnd();
}
