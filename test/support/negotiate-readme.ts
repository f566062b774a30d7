/**
 * The README commands of "Serving v1 and v2", each run by a test exactly as
 * written (test/negotiate-interop.test.ts runs the examples, test/negotiate-bench.test.ts the quick bench).
 */
export const NEGOTIATE_COMMANDS = {
  agent: "npx tsx examples/versions-agent.ts",
  client: "npx tsx examples/versions-client.ts npx tsx examples/versions-agent.ts",
  clientV1: "npx tsx examples/versions-client.ts --v1 npx tsx examples/versions-agent.ts",
  clientOnSdkRouter: "npx tsx examples/versions-client.ts npx tsx test/interop/sdk-router-agent.ts",
  clientOnSdkV1Agent: "npx tsx examples/versions-client.ts npx tsx test/interop/sdk-agent-v1.ts",
  bench: "npx tsx bench/negotiate.bench.ts",
  benchQuick: "npx tsx bench/negotiate.bench.ts --trips 200 --updates 2000 --rounds 1",
} as const;
