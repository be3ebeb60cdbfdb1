import { resolve } from 'node:path';
import { type AgentSummary, type ControlPlane, createControlPlane, DEFAULT_CONFIG_PATH } from './control-plane.js';
import {
  bold,
  createProgress,
  type DemoReport,
  dim,
  printAgents,
  printBoundedRecursion,
  printHandOff,
  printMcpDelegation,
  printOpenIdConnect,
  printRegistry,
  printRemoteEqualsLocal,
  printTrust,
  verdict,
  writeArtifacts,
  writeMcpTrace,
} from './report.js';
import { type BoundedRecursionResult, runBoundedRecursion } from './scenarios/bounded-recursion.js';
import { runConstantSizeHandOff } from './scenarios/constant-size-handoff.js';
import { type McpDelegationResult, runMcpDelegation } from './scenarios/mcp-delegation.js';
import { runOpenIdConnect } from './scenarios/openid-connect.js';
import { runRegistry } from './scenarios/registry.js';
import { runRemoteEqualsLocal } from './scenarios/remote-equals-local.js';
import { runTrust } from './scenarios/trust.js';
import { startDemoTracing } from './tracing.js';
import { judge } from './verdict.js';

// `pnpm demo`: several governed agents on loopback, ADR-159's three acceptance tests, the trust
// check (an unlisted agent is refused), the registry (enroll, find by skill, revoke), an agent
// behind OpenID Connect, an MCP tool call inside a delegation (one trace, one budget), a report.
// Every agent is closed by the scenario that started it (finally blocks), also on failure. Ctrl-C
// aborts the running scenario, which closes its agents and its temporary tier before the demo
// exits 130; a second Ctrl-C (or 10 s without progress) forces the exit.
const outputDirectory = resolve(process.env.INIT_CWD ?? process.cwd(), process.env.DEMO_OUTPUT_DIR ?? 'demo-output');
const configPath = process.env.DEMO_CONFIG ? resolve(process.env.INIT_CWD ?? process.cwd(), process.env.DEMO_CONFIG) : DEFAULT_CONFIG_PATH;
const interrupt = new AbortController();
const onSignal = (signal: NodeJS.Signals): void => {
  if (interrupt.signal.aborted) process.exit(130);
  console.log(`\n${signal === 'SIGINT' ? 'interrupted' : signal}: closing agents…`);
  interrupt.abort(new Error('interrupted'));
  setTimeout(() => process.exit(130), 10_000).unref();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const message = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
const started = Date.now();
const progress = createProgress();
const onAgents = (agents: AgentSummary[]): void => {
  progress.done();
  printAgents(agents);
};
const scenarioOptions = { onProgress: progress.update, onAgents, signal: interrupt.signal };
console.log(bold('a2aplane control-plane demo'));
console.log(dim(`operator config: ${configPath}`));

const report: DemoReport = {
  startedAt: new Date(started).toISOString(),
  durationMs: 0,
  passed: false,
  interrupted: false,
  configPath,
  scenarios: {},
};
let recursion: BoundedRecursionResult | undefined;

/** Runs one scenario on a fresh control plane (its own budget ledger) read from the operator config. */
async function scenario<T>(
  run: (plane: ControlPlane) => Promise<T>,
  print: (result: T) => void,
): Promise<T | { error: string } | undefined> {
  if (interrupt.signal.aborted) return undefined;
  try {
    const result = await run(await createControlPlane(configPath));
    progress.done();
    print(result);
    return result;
  } catch (error) {
    progress.done();
    if (interrupt.signal.aborted) return undefined;
    console.log(`\n${verdict(false)} ${message(error)}`);
    return { error: message(error) };
  }
}

report.scenarios.remoteEqualsLocal = await scenario((plane) => runRemoteEqualsLocal(plane, scenarioOptions), printRemoteEqualsLocal);
report.scenarios.constantSizeHandOff = await scenario((plane) => runConstantSizeHandOff(plane, scenarioOptions), printHandOff);
// The recursion scenario runs traced (OpenTelemetry SDK, spans in memory): its trace goes to the report.
const tracing = startDemoTracing();
let traceJson: string | undefined;
const bounded = await scenario(
  async (plane) => runBoundedRecursion(plane, await createControlPlane(configPath), { ...scenarioOptions, tracing }),
  printBoundedRecursion,
);
if (bounded && 'tree' in bounded) {
  recursion = bounded;
  traceJson = tracing.otlpJson(bounded.traceId);
  const { tree: _tree, ...summary } = bounded;
  report.scenarios.boundedRecursion = summary;
} else {
  report.scenarios.boundedRecursion = bounded;
}

report.scenarios.trustAllowlist = await scenario((plane) => runTrust(plane, scenarioOptions), printTrust);
report.scenarios.registry = await scenario((plane) => runRegistry(plane, scenarioOptions), printRegistry);
report.scenarios.openIdConnect = await scenario((plane) => runOpenIdConnect(plane, scenarioOptions), printOpenIdConnect);
// The MCP scenario runs traced too: its waterfall shows the MCP hops inside the A2A trace.
const mcp = await scenario((plane) => runMcpDelegation(plane, { ...scenarioOptions, tracing }), printMcpDelegation);
report.scenarios.mcpDelegation = mcp;
const mcpTraceJson = mcp && 'traceId' in mcp ? tracing.otlpJson(mcp.traceId) : undefined;

const interrupted = interrupt.signal.aborted;
const result = judge(report.scenarios, interrupted);
report.passed = result.passed;
report.interrupted = interrupted;
report.durationMs = Date.now() - started;
await tracing.shutdown();
const written = await writeArtifacts(outputDirectory, report, recursion, traceJson);
if (mcpTraceJson !== undefined) written.push(...(await writeMcpTrace(outputDirectory, mcp as McpDelegationResult, mcpTraceJson)));

console.log(`\n${bold('Summary')}`);
for (const outcome of result.outcomes)
  console.log(`   ${verdict(outcome.passed)} ${outcome.name}${outcome.error ? ` — ${outcome.error}` : ''}`);
console.log(dim(`\nwrote ${written.join(', ')}`));
const seconds = (report.durationMs / 1000).toFixed(1);
console.log(
  interrupted
    ? `Interrupted after ${seconds} s; every agent was closed.`
    : `${result.passed ? 'All three acceptance tests passed, the unlisted agent was refused, the revoked agent was refused everywhere, the OIDC client was served with the token it fetched and the MCP hops stayed in the trace and the budget' : 'An acceptance test failed'} in ${seconds} s.`,
);
process.exit(result.exitCode);
