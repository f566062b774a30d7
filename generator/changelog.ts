/**
 * `npm run changelog -- OLD_SCHEMA_DIR [--schema-dir DIR]`: writes what
 * changed from the schemas in OLD_SCHEMA_DIR to the pinned ones (DIR, default
 * `schema`) as a section at the top of `DIR/CHANGELOG.md`, the tracked source
 * that `npm run generate` copies into the package as `CHANGELOG.md`. The
 * section is the Markdown of `acp-codegen diff` (rule ids linked to their
 * explanation). Running it again for the same versions replaces that section
 * instead of adding a second one.
 *
 * Exit codes: 0 written, 2 bad usage or a schema that cannot be read.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { diffSchemas } from "./diff/diff.js";
import { formatReport } from "./diff/format.js";
import { SchemaError } from "./load.js";

/** The changelog source inside a schema directory; generate copies it into the package. */
export const CHANGELOG_FILE = "CHANGELOG.md";

const HEADER = "# Changelog\n\nSchema changes of acp-bindings, newest first, written by `npm run changelog` from `acp-codegen diff`.\n";

/** The changelog text with `section` (a Markdown `## ` section) first, replacing a section with the same title. */
export function prependSection(changelog: string | undefined, section: string): string {
  const title = section.slice(0, section.indexOf("\n"));
  const sections = (changelog ?? "").split(/^(?=## )/m).filter((s) => s.startsWith("## "));
  const kept = sections.filter((s) => s.slice(0, s.indexOf("\n")) !== title);
  return [HEADER, section, ...kept].map((s) => s.trimEnd()).join("\n\n") + "\n";
}

/** Runs the command line; returns the exit code. */
export function runChangelog(argv: readonly string[], stderr: (text: string) => void): number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { "schema-dir": { type: "string", default: "schema" } } });
  } catch (error) {
    stderr(`changelog: ${(error as Error).message}\n`);
    return 2;
  }
  if (parsed.positionals.length !== 1) {
    stderr("Usage: npm run changelog -- OLD_SCHEMA_DIR [--schema-dir DIR]\n");
    return 2;
  }
  const [oldDir] = parsed.positionals as [string];
  const schemaDir = parsed.values["schema-dir"];
  for (const dir of [oldDir, schemaDir]) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      stderr(`changelog: ${dir}: no such schema directory\n`);
      return 2;
    }
  }
  try {
    const section = formatReport(diffSchemas(oldDir, schemaDir), "markdown");
    const file = join(schemaDir, CHANGELOG_FILE);
    writeFileSync(file, prependSection(existsSync(file) ? readFileSync(file, "utf8") : undefined, section));
    stderr(`changelog: wrote ${file}; run \`npm run generate\` to copy it into the package\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    stderr(`changelog: ${error.message}\n`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = runChangelog(process.argv.slice(2), (text) => process.stderr.write(text));
}
