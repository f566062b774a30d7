/**
 * The commands README.md documents, and the registry of how the tests cover
 * each (test/readme-commands.test.ts checks both ways: every README command is
 * here, every entry is still in the README, and every test named here holds
 * the command as it runs it).
 *
 * A command is a line of a ```sh block (its `#` comment dropped) or an inline
 * code span starting with `npx ` or `npm run `.
 */
import { CONNECTION_COMMANDS } from "./connection-readme.js";
import { documentation } from "./documentation.js";

/** One command as the documentation writes it, with the `## ` section (or the guide's `# ` title) it stands in. */
export interface ReadmeCommand {
  readonly command: string;
  readonly section: string;
}

/** Every command of the documentation (README.md and the guides), in order of appearance (repeats kept once). */
export function readmeCommands(readme = documentation()): ReadmeCommand[] {
  const found = new Map<string, ReadmeCommand>();
  let section = "";
  let inSh = false;
  let inOther = false;
  for (const line of readme.split("\n")) {
    // A guide's `# ` title starts a section too: its opening example belongs to no section of the file before.
    if (!inSh && !inOther && (line.startsWith("## ") || line.startsWith("# "))) section = line.slice(line.indexOf(" ") + 1);
    if (line.startsWith("```")) {
      if (inSh || inOther) inSh = inOther = false;
      else if (line === "```sh") inSh = true;
      else inOther = true;
      continue;
    }
    const commands = inSh ? [shellCommand(line)].filter((c) => c !== "") : inOther ? [] : inlineCommands(line);
    for (const command of commands) if (!found.has(command)) found.set(command, { command, section });
  }
  return [...found.values()];
}

/** A line of a shell block without its comment (a `#` at the start or after white space). */
export function shellCommand(line: string): string {
  return line.replace(/(^|\s)#.*$/, "").trim();
}

/** The `npx ...` and `npm run ...` code spans of a prose line. */
function inlineCommands(line: string): string[] {
  return [...line.matchAll(/`((?:npx|npm run) [^`]+)`/g)].map((m) => m[1]!);
}

/**
 * How the tests cover a README command:
 * - `ranBy`: the test file that runs it exactly as written; `via` is the text
 *   in that file that holds the command as it runs it (default: the command as
 *   a string literal), e.g. the README block it runs or its argv;
 * - `quick`: a full benchmark run, too slow for the suite; the README shows
 *   `quick` next to it (the same command with smaller options), which a test runs;
 * - `notRun`: why no test can run it (it publishes, reinstalls the running
 *   suite's dependencies, or names a placeholder).
 */
export type Coverage =
  | { readonly ranBy: string; readonly via?: string }
  | { readonly quick: string }
  | { readonly notRun: string };

/** The quick runs this registry's own test runs (test/readme-commands.test.ts). */
export const QUICK_RUNS = {
  fuzz: "npx tsx bench/fuzz.bench.ts --messages 2000 --size 500",
  connectionFuzz: CONNECTION_COMMANDS.fuzzBenchQuick,
  budgets: "npx tsx bench/budgets.ts --runs 1",
  append: "npx tsx --expose-gc bench/append.bench.ts --chunks 100,200 --rounds 1",
} as const;

/** Commands run in the project as written, by test/readme-commands.test.ts. */
export const CHECK_RUNS = {
  generateCheck: "npm run generate:check",
  oneFile: "npx vitest run test/session.test.ts",
  schemaSync: "npm run schema:sync",
} as const;

const SELF = "test/readme-commands.test.ts";
const NPM_CI = "`npm ci` would reinstall the node_modules the running suite uses";
const CONNECTION = "test/interop.test.ts";
const UPDATE_TEST = "test/update.test.ts";
const UPDATES_THIS_CHECKOUT = "takes the newest release into this checkout and runs `npm test`, the suite itself; the update is run from the fixtures (--from-dir) and its --check form against the registry";
const PARSE_BENCH = "test/parse-bench.test.ts";
const NEGOTIATE = "test/negotiate-interop.test.ts";

/** Every README command and how it is covered. */
export const README_COVERAGE: Readonly<Record<string, Coverage>> = {
  "npm ci && npm run generate": { notRun: `${NPM_CI}; \`npm run generate\` is run` },
  "npm ci && npm test": { notRun: `${NPM_CI}; \`npm test\` is the suite's quick group itself` },
  "npm ci && npm run test:all": { notRun: `${NPM_CI}; \`npm run test:all\` is the whole suite, this test among it (.ci/run runs it)` },
  "npm test": { notRun: "the suite's quick group, this test among it" },
  "npm run test:all": { notRun: "the whole suite, this test among it" },
  "npm run test:slow": { notRun: "the suite's slow group, this test among it" },
  "node -e 'for(;;){}' & node -e 'for(;;){}' & npm run test:all; kill %1 %2": { notRun: "the whole suite beside two busy loops, this test among it: docs/testing.md gives the times it printed" },
  [CHECK_RUNS.oneFile]: { ranBy: SELF, via: "CHECK_RUNS.oneFile" },
  "npm ci && npm run pack": { notRun: `${NPM_CI}; \`npm run pack\` is run` },
  "npm run generate": { ranBy: "test/package.test.ts", via: '"npm version minor --no-git-tag-version && npm run generate"' },
  "npx tsx bench/parse.bench.ts --verdicts": { quick: "npx tsx bench/parse.bench.ts --verdicts --size 2000" },
  "npx tsx bench/parse.bench.ts --verdicts --size 2000": { ranBy: PARSE_BENCH, via: 'documented("--verdicts")' },
  "npx tsx bench/fuzz.bench.ts": { quick: QUICK_RUNS.fuzz },
  [QUICK_RUNS.fuzz]: { ranBy: SELF, via: "QUICK_RUNS.fuzz" },
  [CONNECTION_COMMANDS.fuzzBench]: { quick: QUICK_RUNS.connectionFuzz },
  [QUICK_RUNS.connectionFuzz]: { ranBy: SELF, via: "QUICK_RUNS.connectionFuzz" },
  "npx tsx --expose-gc bench/parse.bench.ts": { quick: "npx tsx --expose-gc bench/parse.bench.ts --rounds 1 --warmup 0 --size 2000" },
  "npx tsx --expose-gc bench/parse.bench.ts --rounds 1 --warmup 0 --size 2000": { ranBy: PARSE_BENCH, via: 'documented("--rounds")' },
  "npx tsx --expose-gc bench/reducer.bench.ts": { quick: "npx tsx --expose-gc bench/reducer.bench.ts --rounds 1 --warmup 0 --size 1500" },
  "npx tsx --expose-gc bench/reducer.bench.ts --rounds 1 --warmup 0 --size 1500": {
    ranBy: "test/reducer-bench.test.ts",
    via: '"npx", ["tsx", "--expose-gc", "bench/reducer.bench.ts", "--rounds", "1", "--warmup", "0", "--size", "1500"]',
  },
  "npx tsx --expose-gc bench/reducer-memory.ts": { ranBy: "test/reducer-bench.test.ts", via: '["tsx", "--expose-gc", "bench/reducer-memory.ts"]' },
  "npx tsx --expose-gc bench/reducer-memory.ts --owned": { ranBy: "test/reducer-bench.test.ts", via: '["tsx", "--expose-gc", "bench/reducer-memory.ts", "--owned"]' },
  "npx tsx examples/v2-agent.ts": { ranBy: CONNECTION, via: "CONNECTION_COMMANDS.agent" },
  "npx tsx examples/remote-server.ts": { ranBy: "test/support/load-balancer.ts" },
  "npx tsx bench/remote.bench.ts": { quick: "npx tsx bench/remote.bench.ts --rounds 1 --warmup 0 --trips 50 --updates 200 --firsts 10 --idle 5 --memory-rounds 1" },
  "npx tsx bench/remote.bench.ts --rounds 1 --warmup 0 --trips 50 --updates 200 --firsts 10 --idle 5 --memory-rounds 1": {
    ranBy: "test/remote-bench.test.ts",
    via: '"--rounds", "1", "--warmup", "0", "--trips", "50", "--updates", "200", "--firsts", "10", "--idle", "5", "--memory-rounds", "1"',
  },
  "npx tsx examples/v2-client.ts": { ranBy: CONNECTION, via: "CONNECTION_COMMANDS.client" },
  "npx tsx node_modules/acp-bindings/examples/v1-client.ts": { ranBy: "test/package.test.ts", via: "npx tsx node_modules/${PACKAGE_NAME}/examples/${version}-client.ts" },
  "npx tsx examples/v1-agent.ts": { ranBy: CONNECTION, via: "V1_COMMANDS.agent" },
  "npx tsx examples/v1-client.ts": { ranBy: CONNECTION, via: "V1_COMMANDS.client" },
  "npx tsx examples/v1-client.ts npx tsx test/interop/sdk-agent-v1.ts": { ranBy: CONNECTION, via: "V1_COMMANDS.clientOnSdkAgent" },
  "npx tsx examples/v2-client.ts npx tsx test/interop/sdk-agent.ts": { ranBy: CONNECTION, via: "CONNECTION_COMMANDS.clientOnSdkAgent" },
  "npx tsx bench/connection.bench.ts": { quick: "npx tsx bench/connection.bench.ts --rounds 1 --warmup 0 --trips 100 --updates 500" },
  "npx tsx bench/connection.bench.ts --rounds 1 --warmup 0 --trips 100 --updates 500": { ranBy: "test/connection-readme.test.ts", via: "CONNECTION_COMMANDS.benchQuick" },
  'npx tsx examples/v2-client.ts npx tsx examples/chain.ts "npx tsx examples/note-proxy.ts A" "npx tsx examples/note-proxy.ts B" "npx tsx examples/v2-agent.ts"': {
    ranBy: "test/proxy-chain.test.ts",
    via: `'npx tsx examples/v2-client.ts npx tsx examples/chain.ts "npx tsx examples/note-proxy.ts A" "npx tsx examples/note-proxy.ts B" "npx tsx examples/v2-agent.ts"'`,
  },
  "npx tsx bench/chain.bench.ts": { quick: "npx tsx bench/chain.bench.ts --trips 200 --rounds 1" },
  "npx tsx bench/chain.bench.ts --trips 200 --rounds 1": { ranBy: "test/proxy-chain.test.ts", via: 'CHAIN_BENCH_QUICK = "npx tsx bench/chain.bench.ts --trips 200 --rounds 1"' },
  "npx tsx examples/versions-agent.ts": { ranBy: NEGOTIATE, via: "NEGOTIATE_COMMANDS.agent" },
  "npx tsx examples/versions-client.ts npx tsx examples/versions-agent.ts": { ranBy: NEGOTIATE, via: "NEGOTIATE_COMMANDS.client" },
  "npx tsx examples/versions-client.ts --v1 npx tsx examples/versions-agent.ts": { ranBy: NEGOTIATE, via: "NEGOTIATE_COMMANDS.clientV1" },
  "npx tsx examples/versions-client.ts npx tsx test/interop/sdk-router-agent.ts": { ranBy: NEGOTIATE, via: "NEGOTIATE_COMMANDS.clientOnSdkRouter" },
  "npx tsx examples/versions-client.ts npx tsx test/interop/sdk-agent-v1.ts": { ranBy: NEGOTIATE, via: "NEGOTIATE_COMMANDS.clientOnSdkV1Agent" },
  "npx tsx bench/negotiate.bench.ts": { quick: "npx tsx bench/negotiate.bench.ts --trips 200 --updates 2000 --rounds 1" },
  "npx tsx bench/negotiate.bench.ts --trips 200 --updates 2000 --rounds 1": { ranBy: "test/negotiate-bench.test.ts", via: "NEGOTIATE_COMMANDS.benchQuick" },
  "npm run release": { notRun: "publishes to the npm registry; its dry run is run" },
  // The same script; `--silent` only turns off npm's banner.
  "npm run pack": { ranBy: "test/consumer/harness.ts", via: '"npm", ["run", "--silent", "pack"]' },
  "npm run release -- --dry-run": { ranBy: "test/package.test.ts" },
  "npm run build": { notRun: "the first step of the `npm run pack` script, run with it" },
  "npx tsx bench/standard-bundle.ts": { ranBy: "test/standard.test.ts", via: 'readmeBlocks("Standard Schema", "sh")' },
  "npx acp-bindings check": { notRun: "the command's name in prose; its three forms below are run" },
  "npx acp-bindings check session.ndjson": { ranBy: "test/checker-bin.test.ts", via: 'readmeBlocks("Traffic checker", "sh")' },
  "npx acp-bindings check - --format json < session.ndjson": { ranBy: "test/checker-bin.test.ts", via: 'readmeBlocks("Traffic checker", "sh")' },
  "npx acp-bindings check session.ndjson --surface v1": { ranBy: "test/checker-bin.test.ts", via: 'readmeBlocks("Traffic checker", "sh")' },
  "npx acp-bindings record --out session.ndjson -- node my-agent.js": { ranBy: "test/devtools-readme.test.ts", via: 'readmeShellCommands("Debugging a session")' },
  "npx acp-bindings view session.ndjson -o report.html": { ranBy: "test/devtools-readme.test.ts", via: 'readmeShellCommands("Debugging a session")' },
  "npx acp-bindings mock-agent --script session.ndjson": { ranBy: "test/devtools-readme.test.ts", via: 'readmeShellCommands("Debugging a session")' },
  "npm run docs": { ranBy: "test/docs.test.ts", via: 'run("npm", ["run", "docs"], ROOT)' },
  "npm run generate -- --emitter examples/emitter/guards.ts --out /tmp/acp-bindings-guards": { ranBy: "test/emitter-api.test.ts", via: 'readmeBlocks("Writing an emitter", "sh")' },
  "npx vitest run test/emitter-snapshots.test.ts -u": { ranBy: "test/emitter-api.test.ts", via: 'readmeBlocks("Writing an emitter", "sh")' },
  "npx tsx --expose-gc bench/append.bench.ts": { quick: QUICK_RUNS.append },
  [QUICK_RUNS.append]: { ranBy: SELF, via: "QUICK_RUNS.append" },
  "npx tsx bench/budgets.ts": { quick: QUICK_RUNS.budgets },
  [QUICK_RUNS.budgets]: { ranBy: SELF, via: "QUICK_RUNS.budgets" },
  "npm version minor --no-git-tag-version && npm run generate": { ranBy: "test/package.test.ts" },
  "npx acp-codegen update latest": { notRun: UPDATES_THIS_CHECKOUT },
  "npx acp-codegen update X.Y.Z": { notRun: `X.Y.Z stands for a release; ${UPDATES_THIS_CHECKOUT}` },
  "npm run update -- latest": { notRun: `the same script as \`npx acp-codegen update latest\`, which ${UPDATES_THIS_CHECKOUT}` },
  "npx acp-codegen update --from-dir test/fixtures/schemas/2.4.0": { ranBy: UPDATE_TEST, via: "FROM_DIR_COMMAND" },
  "npx acp-codegen update --check latest": { ranBy: UPDATE_TEST, via: "CHECK_COMMAND" },
  "npx acp-codegen <command> [options]": { notRun: "the usage line: `<command>` and `[options]` are placeholders for the commands run here" },
  [CHECK_RUNS.generateCheck]: { ranBy: SELF, via: "CHECK_RUNS.generateCheck" },
  "npm run update --": { notRun: "names the script in prose; its arguments follow `--` (the update commands above are run, or say why not)" },
  "npm run diff --": { notRun: "names the script in prose; its arguments follow `--` (the diff commands above are run)" },
  "npx acp-codegen diff test/fixtures/schemas/2.0.0 test/fixtures/schemas/2.4.0 --ignore-unstable": { ranBy: "test/diff-changelog.test.ts" },
};
