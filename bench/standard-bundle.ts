/**
 * Bundle cost of the Standard Schema subpaths, esbuild minified + gzip, from
 * generated/src, side by side with the plain `validate` subpath consumer doing
 * the same check (the baseline: what a user writes without Standard Schema),
 * and the plain entry consumer bundled from this tree and from another one
 * (`--baseline DIR`, e.g. a checkout of main's generated/src) to show that the
 * entry points are unchanged. A standalone script, not a test:
 *   npx tsx bench/standard-bundle.ts [--baseline /path/to/other/generated/src]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const SRC = new URL("../generated/src", import.meta.url).pathname;

/** One-file consumers; `SRC` is replaced by the source tree bundled. */
const CONSUMERS: Record<string, string> = {
  "validate subpath: validate.PromptRequest (baseline)": `import * as validate from "SRC/v2/unstable/validate.ts";
console.log(validate.PromptRequest(JSON.parse(input())).ok);`,
  "standard: PromptRequest['~standard'].validate": `import * as standard from "SRC/v2/unstable/standard/strict.ts";
console.log(standard.PromptRequest["~standard"].validate(JSON.parse(input())).issues);`,
  "standard: validate + jsonSchema.input": `import * as standard from "SRC/v2/unstable/standard/strict.ts";
console.log(standard.PromptRequest["~standard"].validate(JSON.parse(input())).issues, standard.PromptRequest["~standard"].jsonSchema.input({ target: "draft-2020-12" }));`,
  "standard-tolerant: PromptRequest['~standard'].validate": `import * as standard from "SRC/v2/unstable/standard/tolerant.ts";
console.log(standard.PromptRequest["~standard"].validate(JSON.parse(input())).issues);`,
  "entry point: parse.UpdateSessionNotification": `import { parse } from "SRC/v2/unstable/index.ts";
console.log(parse.UpdateSessionNotification(JSON.parse(input())).ok);`,
};
const INPUT = `\nfunction input(): string { return (globalThis as { acpInput?: string }).acpInput ?? "{}"; }\n`;

async function gzipSize(dir: string, code: string, src: string): Promise<number> {
  const file = join(dir, "consumer.ts");
  writeFileSync(file, code.replaceAll("SRC", src) + INPUT);
  const result = await build({ entryPoints: [file], bundle: true, minify: true, format: "esm", write: false, logLevel: "silent" });
  return gzipSync(result.outputFiles[0]!.contents).length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { baseline: { type: "string" } } });
  const dir = mkdtempSync(join(tmpdir(), "standard-bundle-"));
  try {
    const rows: string[] = [];
    for (const [name, code] of Object.entries(CONSUMERS)) {
      const ours = await gzipSize(dir, code, SRC);
      const other = values.baseline ? await gzipSize(dir, code, values.baseline).catch(() => undefined) : undefined;
      rows.push(`| ${name} | ${(ours / 1024).toFixed(1)} KiB | ${other === undefined ? "" : `${(other / 1024).toFixed(1)} KiB`} |`);
    }
    console.log(`| consumer (esbuild, minified + gzip) | this tree | ${values.baseline ?? "baseline"} |\n| --- | ---: | ---: |\n${rows.join("\n")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
