#!/usr/bin/env node
/** Command-line entry point: `acp-codegen generate [--schema-dir DIR] [--out DIR] [--check]`. */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { generate } from "./generate.js";
import { SchemaError } from "./load.js";
import { diffTree, writeTree } from "./write.js";

function main(argv: string[]): number {
  const [command, ...rest] = argv;
  if (command !== "generate") {
    process.stderr.write("usage: acp-codegen generate [--schema-dir DIR] [--out DIR] [--check]\n");
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      "schema-dir": { type: "string", default: "schema" },
      out: { type: "string", default: "generated" },
      check: { type: "boolean", default: false },
    },
  });
  const started = performance.now();
  const files = generate({
    schemaDir: values["schema-dir"],
    onSurface: (surface, ms) => process.stderr.write(`acp-codegen: ${surface} ${ms.toFixed(0)} ms\n`),
  });
  const out = resolve(values.out);
  if (values.check) {
    const differences = diffTree(out, files);
    for (const path of differences) process.stderr.write(`differs: ${path}\n`);
    process.stderr.write(`acp-codegen: ${differences.length} file(s) differ from a fresh run\n`);
    return differences.length ? 1 : 0;
  }
  writeTree(out, files);
  process.stderr.write(`acp-codegen: wrote ${files.length} files to ${values.out} in ${(performance.now() - started).toFixed(0)} ms\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof SchemaError)) throw error;
  process.stderr.write(`acp-codegen: ${error.message}\n`);
  process.exitCode = 2;
}
