import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The slow group: tests that start processes (the examples over stdio, the SDK
 * interop matrix, the CLI end to end, Chromium, HAProxy), pack and install the
 * package, type-check consumers with tsc, or run a benchmark's quick form.
 * `npm test` runs every other test file (the quick group); `npm run test:slow`
 * runs these; `npm run test:all` runs both, and so does .ci/run.
 * test/suite-groups.test.ts checks that each name here is a test file.
 */
export const SLOW_TESTS: readonly string[] = [
  "test/bad-schema.test.ts",
  "test/browser.test.ts",
  "test/checker-bin.test.ts",
  "test/connection-readme.test.ts",
  "test/connection-types.test.ts",
  "test/devtools-readme.test.ts",
  "test/diff-changelog.test.ts",
  "test/docs.test.ts",
  "test/emitter-api.test.ts",
  "test/interop.test.ts",
  "test/load-balancer.test.ts",
  "test/mock-agent.test.ts",
  "test/negotiate-bench.test.ts",
  "test/negotiate-interop.test.ts",
  "test/oracle.test.ts",
  "test/package.test.ts",
  "test/parse-bench.test.ts",
  "test/proxy-chain.test.ts",
  "test/published-schemas.test.ts",
  "test/readme-commands.test.ts",
  "test/record.test.ts",
  "test/reducer-bench.test.ts",
  "test/remote-bench.test.ts",
  "test/sdk-compat.test.ts",
  "test/signal-types.test.ts",
  "test/standard.test.ts",
  "test/types-open-union.test.ts",
  "test/types.test.ts",
  "test/update.test.ts",
  "test/view.test.ts",
];

export default defineConfig({
  // The examples import the package by name, as its users do: `acp-bindings/<entry>` is generated/src/<entry>/index.ts (tsconfig.json's `paths`).
  resolve: { alias: [{ find: /^acp-bindings\/(.+)$/, replacement: `${fileURLToPath(new URL("./generated/src/", import.meta.url))}$1/index.ts` }] },
  test: {
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 60_000,
    // A hook that starts processes or builds waits as long as a test may: the suite must pass on a busy machine.
    hookTimeout: 120_000,
    // Two files at a time on this 2-core machine (vitest's default leaves one core idle); much of the time goes waiting on child processes.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "quick", include: ["test/**/*.test.ts"], exclude: [...SLOW_TESTS] } },
      { extends: true, test: { name: "slow", include: [...SLOW_TESTS] } },
    ],
  },
});
