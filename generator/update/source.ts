/**
 * Where `acp-codegen update` takes a release's schemas from: the npm registry
 * (`npm view` resolves `latest`, `npm pack` fetches the tarball into a temp
 * dir), a tarball on disk (`--from-tarball`), or a directory on disk
 * (`--from-dir`: an unpacked SDK package, its `schema/`, or a schema
 * directory with a `lock.json`, such as the fixtures in test/fixtures/schemas).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { LOCK_FILE, SDK_PACKAGE, sha256File, type SchemaLock } from "../schema-sync.js";
import { SURFACES } from "../surfaces.js";
import { parseVersion } from "./policy.js";
import { messageOf, UpdateStepError } from "../errors.js";

/** A release's schemas on disk. */
export interface ReleaseSource {
  readonly version: string;
  /** The directory holding `v1/schema.json` ... `v2/schema.unstable.json`. */
  readonly schemaDir: string;
  /** Where it came from, for the summary (`the registry`, the path given). */
  readonly origin: string;
}

/** Runs a program; its stdout, or an error naming `step` with its stderr. */
function run(step: string, program: string, args: readonly string[], fix: string): string {
  const result = spawnSync(program, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new UpdateStepError(step, `cannot run ${program}: ${result.error.message}`, fix);
  if (result.status !== 0) {
    const said = (result.stderr || result.stdout).trim().split("\n").slice(-6).join("\n    ");
    throw new UpdateStepError(step, `\`${program} ${args.join(" ")}\` exited ${result.status ?? result.signal}:\n    ${said}`, fix);
  }
  return result.stdout;
}

const NETWORK_FIX = `check the network and the version (\`npm view ${SDK_PACKAGE} versions\`), or take the schemas from disk with --from-dir or --from-tarball`;

/** `latest` (or a dist-tag) resolved by the registry; an exact version as it is. */
export function resolveVersion(spec: string): string {
  if (parseVersion(spec)) return spec;
  const name = spec === "latest" ? SDK_PACKAGE : `${SDK_PACKAGE}@${spec}`;
  const version = run("resolve", "npm", ["view", name, "version"], NETWORK_FIX).trim().split("\n").pop()?.replace(/^.*'(.*)'$/, "$1") ?? "";
  if (!parseVersion(version)) throw new UpdateStepError("resolve", `\`npm view ${name} version\` printed ${JSON.stringify(version)}, not a version`, NETWORK_FIX);
  return version;
}

/** Fetches the SDK tarball of `version` into `dir` with `npm pack` and unpacks it there. */
export function fetchFromRegistry(version: string, dir: string): ReleaseSource {
  run("fetch", "npm", ["pack", `${SDK_PACKAGE}@${version}`, "--pack-destination", dir, "--silent"], NETWORK_FIX);
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new UpdateStepError("fetch", `\`npm pack ${SDK_PACKAGE}@${version}\` wrote no .tgz into ${dir}`, NETWORK_FIX);
  const source = fromTarball(join(dir, tarball), dir);
  return { ...source, origin: "the npm registry" };
}

/** Unpacks an SDK tarball (`npm pack` output) into `dir` and reads the release it holds. */
export function fromTarball(file: string, dir: string): ReleaseSource {
  const fix = `${file} must be an ${SDK_PACKAGE} tarball as \`npm pack\` writes it`;
  if (!existsSync(file) || !statSync(file).isFile()) throw new UpdateStepError("fetch", `no such tarball: ${file}`, fix);
  run("fetch", "tar", ["-xzf", file, "-C", dir], fix);
  const unpacked = join(dir, "package");
  if (!existsSync(unpacked)) throw new UpdateStepError("fetch", `${file} holds no package/ directory`, fix);
  return { ...fromDirectory(unpacked), origin: file };
}

/** The release a directory holds: an unpacked SDK package, its `schema/`, or a schema directory with a lock. */
export function fromDirectory(dir: string): ReleaseSource {
  const fix = `--from-dir takes an unpacked ${SDK_PACKAGE} package, its schema/ directory, or a schema directory with a ${LOCK_FILE}`;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UpdateStepError("fetch", `no such directory: ${dir}`, fix);
  const packageJson = join(dir, "package.json");
  if (existsSync(join(dir, "schema")) && existsSync(packageJson)) return checked(join(dir, "schema"), versionOfPackage(packageJson, fix), dir);
  if (existsSync(join(dir, LOCK_FILE))) return checked(dir, versionOfLock(dir, fix), dir);
  if (basename(resolve(dir)) === "schema" && existsSync(join(dir, "..", "package.json"))) return checked(dir, versionOfPackage(join(dir, "..", "package.json"), fix), dir);
  throw new UpdateStepError("fetch", `cannot tell which release ${dir} holds: it has no ${LOCK_FILE} and no package.json`, fix);
}

function readJson(file: string, fix: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new UpdateStepError("fetch", `cannot read ${file}: ${messageOf(error)}`, fix);
  }
}

function versionOfPackage(file: string, fix: string): string {
  const { name, version } = readJson(file, fix);
  if (name !== SDK_PACKAGE || typeof version !== "string") throw new UpdateStepError("fetch", `${file} is not the package.json of ${SDK_PACKAGE} (name ${JSON.stringify(name)})`, fix);
  return version;
}

/** The version a lock names, after checking each file it lists against its sha256. */
function versionOfLock(dir: string, fix: string): string {
  const lock = readJson(join(dir, LOCK_FILE), fix) as Partial<SchemaLock>;
  if (lock.package !== SDK_PACKAGE || typeof lock.version !== "string") throw new UpdateStepError("fetch", `${join(dir, LOCK_FILE)} names no ${SDK_PACKAGE} version`, fix);
  for (const [file, sha] of Object.entries(lock.files ?? {})) {
    if (existsSync(join(dir, file)) && sha256File(join(dir, file)) !== sha) {
      throw new UpdateStepError("fetch", `${join(dir, file)} does not match the sha256 its ${LOCK_FILE} records`, `restore ${join(dir, file)} or its ${LOCK_FILE}`);
    }
  }
  return lock.version;
}

/** The source, once each of the four schema files is known to be there and the version to parse. */
function checked(schemaDir: string, version: string, origin: string): ReleaseSource {
  if (!parseVersion(version)) throw new UpdateStepError("fetch", `${origin} names the version ${JSON.stringify(version)}, which is not X.Y.Z`, `check ${origin}`);
  const missing = SURFACES.map((s) => s.file).filter((file) => !existsSync(join(schemaDir, file)));
  if (missing.length) {
    throw new UpdateStepError("fetch", `${schemaDir} lacks ${missing.join(", ")}: update takes the split layout of ${SDK_PACKAGE} 2.0.0 and later`, `take a release with the four schema files`);
  }
  return { version, schemaDir, origin };
}
