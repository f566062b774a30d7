/**
 * The `acp-codegen` command line: help on every command, exit codes (0 ok,
 * 1 findings, 2 bad usage or input), progress and summary lines, `--check`,
 * `--surface`, and the package bin itself.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";
import { cli, snapshotTree, tempDir } from "./support/run-cli.js";

describe("help and usage errors", () => {
  it.each([["--help"], ["-h"], ["help"]])("`%s` prints the command list and exits 0", (flag) => {
    const run = cli(flag);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: acp-codegen <command>/);
    expect(run.stdout).toContain("generate");
    expect(run.stdout).toContain("diff");
  });

  it.each([
    ["generate", "--check"],
    ["diff", "--fail-on"],
  ])("`%s --help` documents its options (%s) and exits 0", (command, option) => {
    for (const argv of [[command, "--help"], [command, "-h"], ["help", command]]) {
      const run = cli(...argv);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: acp-codegen ${command}`));
      expect(run.stdout).toContain(option);
      expect(run.stderr).toBe("");
    }
  });

  it.each([
    [[], /no command given/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["generate", "--bogus"], /Unknown option '--bogus'/],
    [["generate", "--surface", "v3"], /--surface must be one of v1, v1\/unstable, v2, v2\/unstable, got "v3"/],
    [["generate", "extra"], /Unexpected argument|expected 0 argument/],
    [["diff", "only-one"], /expected 2 argument\(s\), got 1/],
    [["diff", "a", "b", "--format", "yaml"], /--format must be one of text, json, markdown/],
    [["diff", "a", "b", "--fail-on", "sometimes"], /--fail-on must be one of error, warn, never/],
  ])("%j is bad usage: exit 2 with a hint", (argv, message) => {
    const run = cli(...argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run `acp-codegen( \w+)? --help` for usage\./);
  });

  it("a missing input path is bad input, not a crash", () => {
    const run = cli("diff", join(tempDir("nothing"), "missing.json"), join(SCHEMA_DIR, "v2/schema.json"));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing\.json.*ENOENT/);
  });
});

describe("generate", () => {
  it("prints one progress line per surface with its time, then a summary; --quiet prints nothing", () => {
    const out = tempDir("out");
    const run = cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--surface", "v1");
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^acp-codegen: v1 +\d+ ms$/);
    expect(lines[1]).toMatch(/^acp-codegen: v2 +\d+ ms$/);
    expect(lines[2]).toMatch(new RegExp(`^acp-codegen: wrote \\d+ files to ${out} \\(2 surfaces, \\d+ ms\\)$`));
    expect([...snapshotTree(out).keys()]).toContain("src/v2/index.ts");
    expect([...snapshotTree(out).keys()]).not.toContain("src/v2/unstable/index.ts");
    const quiet = cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--quiet");
    expect(quiet).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("--check writes nothing, lists changed, missing and extra files on stdout, and exits 1", () => {
    const out = tempDir("out");
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--quiet").code).toBe(0);
    const clean = cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--check");
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe("");
    expect(clean.stderr).toMatch(/is up to date \(1 surface, \d+ ms\)/);

    writeFileSync(join(out, "src/v2/index.ts"), "// edited by hand\n");
    rmSync(join(out, "src/v2/types.ts"));
    writeFileSync(join(out, "src/v2/stray.ts"), "// not generated\n");
    const before = snapshotTree(out);
    const dirty = cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--check");
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toBe("src/v2/index.ts\nsrc/v2/stray.ts\nsrc/v2/types.ts\n");
    expect(dirty.stderr).toMatch(/3 file\(s\) in .* differ from a fresh run/);
    expect(snapshotTree(out)).toEqual(before);
  });

  it("--surface regenerates only that surface and keeps the others' files", () => {
    const out = tempDir("out");
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--surface", "v2/unstable", "--quiet").code).toBe(0);
    writeFileSync(join(out, "src/v2/unstable/index.ts"), "// marker: left alone\n");
    writeFileSync(join(out, "src/v2/index.ts"), "// marker: regenerated\n");
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v2", "--quiet").code).toBe(0);
    expect(readFileSync(join(out, "src/v2/unstable/index.ts"), "utf8")).toBe("// marker: left alone\n");
    expect(readFileSync(join(out, "src/v2/index.ts"), "utf8")).toMatch(/^\/\/ Generated by acp-codegen/);
  });

  it("--variant-names replaces the table of the schema directory", () => {
    const table = join(tempDir("names"), "names.json");
    writeFileSync(table, "{}");
    const run = cli("generate", "--schema-dir", SCHEMA_DIR, "--surface", "v2", "--variant-names", table, "--check");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`to ${table} (the reviewed naming table)`);
  });
});

describe("the package bin", () => {
  it("package.json points `acp-codegen` at the shim, and the npm scripts call it", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ "acp-codegen": "generator/acp-codegen.js" });
    expect(pkg.scripts.generate).toBe("node generator/acp-codegen.js generate");
    expect(pkg.scripts.diff).toBe("node generator/acp-codegen.js diff");
  });

  it("runs as a process with the documented exit codes", () => {
    const bin = (...argv: string[]) => spawnSync(process.execPath, [join(ROOT, "generator/acp-codegen.js"), ...argv], { cwd: ROOT, encoding: "utf8" });
    const help = bin("diff", "--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: acp-codegen diff OLD NEW/);
    const bad = bin("generate", "--schema-dir", tempDir("empty"));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/no ACP schema here/);
  }, 30_000);
});
