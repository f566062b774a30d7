/**
 * acp-bindings as users get it: `npm run pack` builds and packs generated/
 * (in a clean scratch checkout), the tarball holds exactly the allow-listed files and
 * passes publint and arethetypeswrong, and a strict consumer project that
 * installs the tarball type-checks on the oldest and newest TypeScript for
 * both module modes, then runs: it parses a `session/update` on two
 * surfaces, applies patches, reduces a session and uses the builders (each
 * step runs once the package exports what it needs; until then it is
 * skipped with a note). The release path, `npm run release`, publishes
 * byte for byte that tarball, and packing or publishing generated/ without
 * a build fails with one line saying what to run.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { namespaceModules, PACKAGE_NAME, REPOSITORY_FILES, RULES_FILE } from "../generator/emit/package-layout.js";
import { STANDARD_MODULES } from "../generator/emit/standard.js";
import { TESTED_TYPESCRIPT } from "../generator/emit/package-readme.js";
import { BUILD_DIR } from "../generator/output.js";
import { integrityOf, tarballPath } from "../generator/release.js";
import { SURFACE_MODULES } from "../generator/generate.js";
import { SURFACES } from "../generator/surfaces.js";
import { cleanCheckout, installConsumer, linkDevDependencies, packScratch, ROOT, run, runOk, tarballFiles, tscOf, typescriptVersion, type Packed, type Run } from "./consumer/harness.js";
import { documentation } from "./support/documentation.js";

/** The compilers of the matrix (root devDependencies, aliases pinned in the lock file), oldest first. */
const TYPESCRIPTS = ["typescript-5-0", "typescript", "typescript-7"] as const;
const MODULE_MODES = ["nodenext", "bundler"] as const;

/** The consumer program's steps: a file in test/consumer/src and the v2/unstable exports it needs. */
const STEPS = [
  { file: "parse.ts", needs: ["parse", "validate"], prints: ["v1 parse: agent_message_chunk", "v2/unstable parse: agent_message_chunk"] },
  { file: "session.ts", needs: ["apply", "emptySessionState", "reduceSession"], prints: ["v2/unstable reduceSession:", "v2/unstable apply:"] },
  { file: "build.ts", needs: ["build", "apply", "emptySessionState", "reduceSession"], prints: ["v2/unstable build:"] },
] as const;

/** What the tarball may hold: the package files, the repository's files (license, rulebook, examples), each schema copy, and a .js + .d.ts per source module. */
function allowList(): string[] {
  const generated = join(ROOT, "generated");
  const schemas = SURFACES.map((s) => `schema/${s.file}`);
  const sources = readdirSync(join(generated, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const built = sources.flatMap((f) => [".js", ".d.ts"].map((ext) => `${BUILD_DIR}/${f.replace(/\.ts$/, ext).split("\\").join("/")}`));
  const changelog = existsSync(join(generated, "CHANGELOG.md")) ? ["CHANGELOG.md"] : []; // once `npm run changelog` wrote one
  return ["README.md", "package.json", ...REPOSITORY_FILES, ...changelog, ...schemas, ...built].sort();
}

/** The runtime exports of the built v2/unstable entry, as Node.js sees them. */
function v2UnstableExports(packageDir: string): string[] {
  const entry = pathToFileURL(join(packageDir, BUILD_DIR, "v2", "unstable", "index.js")).href;
  const script = "const m = await import(process.argv[1]); console.log(JSON.stringify(Object.keys(m)));";
  return JSON.parse(runOk(process.execPath, ["--input-type=module", "-e", script, entry], ROOT).stdout) as string[];
}

/** The TypeScript code blocks of the package README, each a module of its own (Node programs, some of them: compiled with Node's types). */
function readmeExamples(consumer: string): Record<string, string> {
  const readme = readFileSync(join(consumer, "node_modules", PACKAGE_NAME, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return Object.fromEntries(blocks.map((code, i) => [`readme-${i + 1}.ts`, code]));
}

let packed: Packed;

beforeAll(() => {
  packed = packScratch();
}, 180_000);

afterAll(() => {
  if (packed) rmSync(packed.scratch, { recursive: true, force: true });
});

describe("the package", () => {
  it("package.json: ESM, no side effects, no dependencies, an exports map with `types` first", () => {
    const manifest = JSON.parse(readFileSync(join(packed.packageDir, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: PACKAGE_NAME, type: "module", sideEffects: false });
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies", "main", "module", "types"]) expect(manifest).not.toHaveProperty(field);
    const namespaces = [...namespaceModules(SURFACE_MODULES), ...STANDARD_MODULES];
    expect(namespaces.map((n) => n.name)).toEqual(expect.arrayContaining(["parse", "validate"]));
    expect(Object.keys(manifest.exports)).toEqual([
      ...SURFACES.flatMap((s) => [`./${s.surface}`, ...namespaces.map((n) => `./${s.surface}/${n.name}`)]),
      "./negotiate",
      ...SURFACES.map((s) => `./schema/${s.file}`),
      "./package.json",
    ]);
    const target = (module: string) => ({ types: `./${BUILD_DIR}/${module}.d.ts`, default: `./${BUILD_DIR}/${module}.js` });
    for (const { surface } of SURFACES) {
      expect(manifest.exports[`./${surface}`]).toEqual(target(`${surface}/index`));
      for (const n of namespaces) expect(manifest.exports[`./${surface}/${n.name}`]).toEqual(target(`${surface}/${n.module}`));
    }
    expect(manifest.exports["./negotiate"]).toEqual(target("negotiate/index"));
    // `toEqual` ignores key order; resolution does not.
    for (const conditions of Object.values(manifest.exports)) if (typeof conditions === "object") expect(Object.keys(conditions as object)).toEqual(["types", "default"]);
  });

  it("package.json: license and repository from acp-codegen's own, the version policy's provenance, only the prepack guard as a script", () => {
    const manifest = JSON.parse(readFileSync(join(packed.packageDir, "package.json"), "utf8"));
    const generator = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(join(ROOT, "schema", "lock.json"), "utf8"));
    expect(manifest.license).toBe("Apache-2.0");
    expect(generator.license).toBe(manifest.license);
    expect(manifest.repository).toEqual(generator.repository && { ...generator.repository, directory: "generated" });
    expect(manifest.version).toBe(generator.version);
    expect(manifest.acp).toEqual({ generator: `acp-codegen@${generator.version}`, schema: `${lock.package}@${lock.version}` });
    expect(Object.keys(manifest.scripts)).toEqual(["prepack"]);
    expect(readFileSync(join(packed.packageDir, "LICENSE"), "utf8")).toBe(readFileSync(join(ROOT, "LICENSE"), "utf8"));
    expect(readFileSync(join(packed.packageDir, RULES_FILE), "utf8")).toBe(readFileSync(join(ROOT, RULES_FILE), "utf8"));
  });

  it("`npm run pack` leaves generated/ as `npm run generate` wrote it (no dist/)", () => {
    expect(existsSync(join(packed.scratch, "generated", BUILD_DIR))).toBe(false);
  });

  it("the tarball holds exactly the allow-listed files", () => {
    expect(tarballFiles(packed.tarball)).toEqual(allowList());
  });

  it("passes publint (strict: warnings count)", () => {
    const lint = run(join(ROOT, "node_modules", ".bin", "publint"), ["run", packed.tarball, "--strict"], ROOT);
    expect(lint.stdout + lint.stderr).toContain("All good!");
    expect(lint.code).toBe(0);
  });

  it("passes arethetypeswrong for an ESM-only package: every entry resolves under node16 (ESM) and bundler", () => {
    const attw = run(join(ROOT, "node_modules", ".bin", "attw"), [packed.tarball, "--profile", "esm-only", "--format", "json"], ROOT);
    expect(attw.code, attw.stderr).toBe(0);
    const { problems } = JSON.parse(attw.stdout) as { problems: Record<string, { resolutionKind?: string }[]> };
    // The profile ignores only these: node10 does not read `exports`, and CommonJS reaches an ES module only by import().
    const kinds = new Set(Object.values(problems).flatMap((list) => list.map((p) => p.resolutionKind)));
    expect([...kinds].filter((k) => k !== "node10" && k !== "node16-cjs")).toEqual([]);
  });
});

/** The release command as README.md documents it (dry run: everything but the upload). */
const RELEASE_DRY_RUN = "npm run release -- --dry-run";

/** The version bump before a release, as README.md documents it. */
const VERSION_BUMP = "npm version minor --no-git-tag-version && npm run generate";

/** npm without the network: a dry run must not need a registry. */
const OFFLINE = { npm_config_offline: "true" };

/** Runs a command line through the shell in `cwd`, offline. */
function shell(commandLine: string, cwd: string): Run {
  return run("sh", ["-c", commandLine], cwd, OFFLINE);
}

describe("the release path", () => {
  let checkout: string;
  let release: Run;

  beforeAll(() => {
    checkout = cleanCheckout();
    release = shell(RELEASE_DRY_RUN, checkout);
  }, 180_000);

  afterAll(() => {
    if (checkout) rmSync(checkout, { recursive: true, force: true });
  });

  it("the documentation has the release and version-bump commands this test runs", () => {
    const readme = documentation();
    expect(readme).toContain(RELEASE_DRY_RUN);
    expect(readme).toContain(VERSION_BUMP);
  });

  it(`\`${RELEASE_DRY_RUN}\` publishes (dry run) byte for byte the tarball the consumer tests install`, () => {
    expect(release.code, release.stderr).toBe(0);
    const version = JSON.parse(readFileSync(join(checkout, "generated", "package.json"), "utf8")).version as string;
    const published = join(checkout, tarballPath(version));
    // Two clean checkouts, packed separately: the build and the tarball are deterministic.
    expect(readFileSync(published).equals(readFileSync(packed.tarball))).toBe(true);
    expect(release.stdout).toContain(`release: publishing ${tarballPath(version)} (${integrityOf(packed.tarball)})`);
    // What npm itself says it would upload: the same file, by name and sha1.
    const sha1 = createHash("sha1").update(readFileSync(packed.tarball)).digest("hex");
    expect(release.stderr).toContain(`npm notice shasum: ${sha1}`);
    expect(release.stderr).toContain(`npm notice filename: ${PACKAGE_NAME}-${version}.tgz`);
    expect(release.stderr).toMatch(/\(dry-run\)/);
  });

  it.each(["npm pack ./generated", "npm publish ./generated --dry-run"])("`%s` without a build fails with one line saying what to run, and packs nothing", (command) => {
    const result = shell(command, checkout);
    expect(result.code).not.toBe(0);
    const ours = result.stderr.split("\n").filter((line) => line.startsWith(`${PACKAGE_NAME} is not built`));
    expect(ours).toEqual([expect.stringMatching(/is missing\): in the acp-codegen repository run npm run release \(build, pack into packed\/, publish that tarball\) or npm run pack$/)]);
    expect(readdirSync(checkout).filter((name) => name.endsWith(".tgz"))).toEqual([]);
  });

  it("the documented version bump carries the new version into generated/ (package.json, provenance)", () => {
    const bumped = cleanCheckout();
    try {
      const bump = shell(VERSION_BUMP, bumped);
      expect(bump.code, bump.stderr).toBe(0);
      const version = JSON.parse(readFileSync(join(bumped, "package.json"), "utf8")).version as string;
      expect(version).not.toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
      const manifest = JSON.parse(readFileSync(join(bumped, "generated", "package.json"), "utf8"));
      expect([manifest.version, manifest.acp.generator]).toEqual([version, `acp-codegen@${version}`]);
      expect(readFileSync(join(bumped, "generated", "src", "v2", "types.ts"), "utf8")).toMatch(new RegExp(`^// Generated by acp-codegen ${version.replaceAll(".", "\\.")} `));
    } finally {
      rmSync(bumped, { recursive: true, force: true });
    }
  });

  it("refuses a generated/ that is not a fresh run, before packing anything", () => {
    const stale = cleanCheckout();
    try {
      writeFileSync(join(stale, "generated", "README.md"), "edited by hand\n");
      const result = shell(RELEASE_DRY_RUN, stale);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("README.md");
      expect(result.stderr).toContain("release: generated/ is not what `npm run generate` writes from schema/");
      expect(existsSync(join(stale, "packed"))).toBe(false);
    } finally {
      rmSync(stale, { recursive: true, force: true });
    }
  });
});

describe("a strict consumer project that installs the tarball", () => {
  let consumer: string;
  let exports: ReadonlySet<string>;

  let examples: number;

  beforeAll(() => {
    exports = new Set(v2UnstableExports(packed.packageDir));
    const available = STEPS.filter((step) => step.needs.every((name) => exports.has(name)));
    consumer = installConsumer(packed, ["check.ts", ...available.map((s) => s.file)]);
    // The README's examples and the shipped example programs are Node programs: a project of their own, with Node's types.
    const nodeSources = join(consumer, "node-src");
    cpSync(join(consumer, "node_modules", PACKAGE_NAME, "examples"), join(nodeSources, "examples"), { recursive: true });
    const readme = Object.entries(readmeExamples(consumer));
    for (const [file, code] of readme) writeFileSync(join(nodeSources, file), code);
    examples = readme.length;
    linkDevDependencies(consumer, ["@types/node", "tsx"]);
  }, 120_000);

  it("ships the example programs, which import the package by name", () => {
    const shipped = readdirSync(join(consumer, "node_modules", PACKAGE_NAME, "examples")).map((file) => `examples/${file}`);
    expect(shipped.sort()).toEqual(REPOSITORY_FILES.filter((file) => file.startsWith("examples/")).sort());
    for (const file of shipped) expect(readFileSync(join(consumer, "node_modules", PACKAGE_NAME, file), "utf8")).not.toMatch(/from "\.\.\//);
    // The README links the agents and clients: each link is a shipped file.
    const linked = [...readFileSync(join(consumer, "node_modules", PACKAGE_NAME, "README.md"), "utf8").matchAll(/\]\((examples\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(linked).toEqual(["examples/v1-agent.ts", "examples/v1-client.ts", "examples/v2-agent.ts", "examples/v2-client.ts"]);
    for (const file of linked) expect(shipped).toContain(file);
  });

  it.each([
    ["v1", [{ agent: "example-v1-agent" }, { stopReason: "cancelled" }, { listed: [{ title: "hello agent" }] }, { replayedPrompts: 2 }]],
    ["v2", [{ agent: "example-agent" }, { stopReason: "cancelled" }, { listed: [{ title: "hello agent" }] }, { state: "idle" }]],
  ])("the package README's command for the %s example client runs the shipped client against the shipped agent", (version, steps) => {
    const command = `npx tsx node_modules/${PACKAGE_NAME}/examples/${version}-client.ts`;
    expect(readFileSync(join(consumer, "node_modules", PACKAGE_NAME, "README.md"), "utf8")).toContain(`\n${command}\n`);
    const result = shell(command, consumer);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n").map((line) => JSON.parse(line))).toMatchObject(steps);
  }, 60_000);

  it("type-checks the package README's examples too (one per entry point at least)", () => {
    expect(examples).toBeGreaterThanOrEqual(SURFACES.length);
  });

  it("the matrix is the TypeScript versions the package README names", () => {
    expect(TYPESCRIPTS.map(typescriptVersion)).toEqual(TESTED_TYPESCRIPT);
  });

  it("installed the tarball, not a link", () => {
    const manifest = JSON.parse(readFileSync(join(consumer, "package.json"), "utf8"));
    expect(manifest.dependencies[PACKAGE_NAME]).toMatch(/^file:.*\.tgz$/);
    expect(readdirSync(join(consumer, "node_modules", PACKAGE_NAME, BUILD_DIR)).sort()).toEqual(["bin", "negotiate", "runtime", "v1", "v2"]);
  });

  const matrix = TYPESCRIPTS.flatMap((ts) => MODULE_MODES.map((mode) => [ts, mode] as const));
  it.each(matrix)("type-checks with %s, module %s (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess), and the README's examples and the shipped examples with Node's types", (ts, mode) => {
    for (const project of [`tsconfig.${mode}.json`, `tsconfig.node-${mode}.json`]) {
      const check = run(process.execPath, [tscOf(ts), "-p", project, "--pretty", "false"], consumer);
      expect(check.stdout + check.stderr, project).toBe("");
      expect(check.code, project).toBe(0);
    }
  });

  describe("runs the program under Node.js", () => {
    beforeAll(() => {
      mkdirSync(join(consumer, "out"), { recursive: true });
      runOk(process.execPath, [tscOf("typescript-7"), "-p", "tsconfig.nodenext.json", "--noEmit", "false"], consumer);
    }, 60_000);

    it.for(STEPS.map((step) => [step.file, step] as const))("step %s", ([file, step], context) => {
      const missing = step.needs.filter((name) => !exports.has(name));
      if (missing.length > 0) {
        const note = `NOTE: ${PACKAGE_NAME}/v2/unstable does not export ${missing.join(", ")} yet; the ${file} step of the consumer program is skipped until it does.`;
        console.warn(note);
        context.skip(note);
      }
      const program = runOk(process.execPath, [join("out", file.replace(/\.ts$/, ".js"))], consumer);
      for (const line of step.prints) expect(program.stdout).toContain(line);
    });

    it("the schema files import as JSON modules", () => {
      const script = SURFACES.map((s, i) => `import s${i} from "${PACKAGE_NAME}/schema/${s.file}" with { type: "json" };`).join("\n") +
        `\nconsole.log([${SURFACES.map((_, i) => `Object.keys(s${i}.$defs).length`).join(", ")}].join(" "));`;
      const counts = runOk(process.execPath, ["--input-type=module", "-e", script], consumer).stdout.trim().split(" ");
      expect(counts.map(Number).every((n) => n > 100)).toBe(true);
    });
  });
});
