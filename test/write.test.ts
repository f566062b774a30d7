/**
 * Safe output: after any failure the output directory is exactly as before,
 * and what a killed run leaves behind is cleaned up (or restored) by the next.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_DIR, diffTree, OUTPUT_MARKER, recoverInterruptedWrites, surfaceOfOutputPath, treeWithOtherSurfaces, writeTree, type OutputFile } from "../generator/write.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";
import { cli, previousOutput, snapshotTree, tempDir, writeFiles } from "./support/run-cli.js";

const FRESH: OutputFile[] = [
  { path: "src/v2/index.ts", content: "// fresh\n" },
  { path: "src/v2/unstable/index.ts", content: "// fresh unstable\n" },
];

/** A pid that certainly belongs to no running process: a child that has already exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

function siblingsOf(outDir: string): string[] {
  return readdirSync(dirname(outDir)).filter((name) => name.startsWith(`${basename(outDir)}.`));
}

describe("writeTree", () => {
  it("replaces the output with exactly the new files and leaves no sibling behind", () => {
    const out = previousOutput();
    writeTree(out, FRESH);
    expect([...snapshotTree(out)].sort()).toEqual([
      [OUTPUT_MARKER, expect.stringContaining("acp-codegen")],
      ["src/v2/index.ts", "// fresh\n"],
      ["src/v2/unstable/index.ts", "// fresh unstable\n"],
    ]);
    expect(siblingsOf(out)).toEqual([]);
  });

  it("refuses to replace what no run wrote: a directory with other files, a file, a symbolic link (exit 2 through the CLI, nothing touched)", () => {
    const dir = tempDir("not-output");
    const project = writeFiles(join(dir, "project"), { "package.json": '{"name":"mine"}', ".git/HEAD": "ref\n", "src/keep.ts": "// mine\n" });
    const file = writeFiles(dir, { "notes.txt": "mine\n" }) + "/notes.txt";
    const link = join(dir, "link");
    symlinkSync(previousOutput(), link);
    for (const target of [project, file, link]) {
      const before = lstatSync(target).isDirectory() ? snapshotTree(target) : undefined;
      expect(() => writeTree(target, FRESH)).toThrow(/refusing to replace/);
      const run = cli("generate", "--surface", "v2", "--out", target, "--quiet");
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/refusing to replace/);
      if (before) expect(snapshotTree(target)).toEqual(before);
    }
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("replaces an empty directory, and an output written before the marker existed (the package.json of acp-bindings)", () => {
    const empty = tempDir("empty");
    writeTree(empty, FRESH);
    expect(existsSync(join(empty, OUTPUT_MARKER))).toBe(true);
    const legacy = writeFiles(join(tempDir("legacy"), "out"), { "package.json": '{"name":"acp-bindings"}', "src/old.ts": "" });
    writeTree(legacy, FRESH);
    expect(existsSync(join(legacy, "src/old.ts"))).toBe(false);
    expect(() => writeTree(tempDir("x"), [{ path: OUTPUT_MARKER, content: "" }])).toThrow(/no emitter may write it/);
  });

  it("a write failing half-way leaves the output as it was", () => {
    const out = previousOutput();
    const before = snapshotTree(out);
    // The second file needs `src/v2/index.ts` to be a directory: ENOTDIR after the first file is written.
    const clash = [...FRESH, { path: "src/v2/index.ts/oops.ts", content: "" }];
    expect(() => writeTree(out, clash)).toThrow(/ENOTDIR|EEXIST/);
    expect(snapshotTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual([]);
  });

  it("refuses output paths that escape the output directory, before touching anything", () => {
    const out = previousOutput();
    const before = snapshotTree(out);
    expect(() => writeTree(out, [{ path: "../escaped.ts", content: "" }])).toThrow(/escapes the output directory/);
    expect(snapshotTree(out)).toEqual(before);
    expect(existsSync(join(dirname(out), "escaped.ts"))).toBe(false);
  });

  it("a run killed while writing leaves the output as it was; the next run removes its staging directory", async () => {
    const out = previousOutput();
    const before = snapshotTree(out);
    // A child writing 20 000 files (seconds of work), killed as soon as its staging directory has files.
    const script = `
      import { writeTree } from ${JSON.stringify(join(ROOT, "generator/write.ts"))};
      const files = Array.from({ length: 20000 }, (_, i) => ({ path: "src/v2/f" + i + ".ts", content: "x".repeat(1000) }));
      writeTree(${JSON.stringify(out)}, files);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: "ignore" });
    const staging = join(dirname(out), `${basename(out)}.staging-${child.pid}`);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    while (!existsSync(join(staging, "src/v2"))) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGKILL");
    await exited;
    expect(snapshotTree(out)).toEqual(before);
    expect(existsSync(staging)).toBe(true);
    writeTree(out, FRESH);
    expect(existsSync(staging)).toBe(false);
    expect(snapshotTree(out).get("src/v2/index.ts")).toBe("// fresh\n");
  }, 30_000);

  it("a run killed between the two renames of the swap is undone: the previous output comes back", () => {
    const out = previousOutput();
    const before = snapshotTree(out);
    const pid = deadPid();
    const previous = `${out}.previous-${pid}`;
    renameSync(out, previous);
    writeFiles(`${out}.staging-${pid}`, { "src/v2/index.ts": "// half-done\n" });
    recoverInterruptedWrites(out);
    expect(snapshotTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual([]);
  });

  it("generate --surface after a run killed mid-swap puts the previous output back first, then keeps the other surfaces' files", () => {
    const out = join(tempDir("swap"), "out");
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--quiet").code).toBe(0);
    const before = snapshotTree(out);
    renameSync(out, `${out}.previous-${deadPid()}`);
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--surface", "v1", "--quiet").code).toBe(0);
    expect(snapshotTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual([]);
  });

  it("generate --check writes nothing, also with a killed run's leftovers beside the output", () => {
    const out = join(tempDir("check"), "out");
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--quiet").code).toBe(0);
    const previous = `${out}.previous-${deadPid()}`;
    renameSync(out, previous);
    const run = cli("generate", "--schema-dir", SCHEMA_DIR, "--out", out, "--check", "--quiet");
    expect(run.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(previous)).toBe(true);
  });

  it("an output from before the marker is not replaced when it holds a repository (a fork of the package)", () => {
    const fork = writeFiles(join(tempDir("fork"), "out"), { "package.json": '{"name":"acp-bindings"}', ".git/HEAD": "ref\n" });
    expect(() => writeTree(fork, FRESH)).toThrow(/refusing to replace/);
    expect(cli("generate", "--schema-dir", SCHEMA_DIR, "--out", fork, "--check", "--quiet").code).toBe(2);
  });

  it("leaves the staging directory of a run that is still alive alone", () => {
    const out = previousOutput();
    const live = `${out}.staging-${process.ppid}`;
    mkdirSync(live);
    writeTree(out, FRESH);
    expect(existsSync(live)).toBe(true);
  });
});

describe("--surface keeps the files of other surfaces", () => {
  it("owns paths by their longest surface directory", () => {
    expect(surfaceOfOutputPath("src/v2/index.ts")).toBe("v2");
    expect(surfaceOfOutputPath("src/v2/unstable/index.ts")).toBe("v2/unstable");
    expect(surfaceOfOutputPath("src/runtime/result.ts")).toBeUndefined();
  });

  it("replaces the selected surface's files, stale ones included, and keeps the rest", () => {
    const out = writeFiles(tempDir("out"), {
      "src/v2/index.ts": "// old v2\n",
      "src/v2/stale.ts": "// gone after regenerating v2\n",
      "src/v2/unstable/index.ts": "// other surface\n",
      "src/runtime/extra.ts": "// shared, not produced this time\n",
    });
    writeFileSync(join(out, "package.json"), "{}\n");
    const tree = treeWithOtherSurfaces(out, [{ path: "src/v2/index.ts", content: "// new v2\n" }], ["v2"]);
    expect(new Map(tree.map((f) => [f.path, f.content]))).toEqual(
      new Map([
        ["src/v2/index.ts", "// new v2\n"],
        ["package.json", "{}\n"],
        ["src/runtime/extra.ts", "// shared, not produced this time\n"],
        ["src/v2/unstable/index.ts", "// other surface\n"],
      ]),
    );
  });
});

describe("diffTree", () => {
  it("ignores the package build output (dist/) but reports any other extra, missing or changed file", () => {
    const out = tempDir("diff");
    writeFiles(out, { "src/a.ts": "a", [`${BUILD_DIR}/a.js`]: "built", "stale.ts": "x" });
    expect(diffTree(out, [{ path: "src/a.ts", content: "a" }, { path: "src/b.ts", content: "b" }])).toEqual(["src/b.ts", "stale.ts"]);
    expect(diffTree(out, [{ path: "src/a.ts", content: "changed" }, { path: "stale.ts", content: "x" }])).toEqual(["src/a.ts"]);
  });
});
