import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSummary, SignedCalls } from './control-plane.js';
import { readOtlpJson } from '@a2aplane/a2a-otel/read';
import { renderTreeSvg, renderTreeText } from './delegation-tree.js';
import type { BoundedRecursionResult } from './scenarios/bounded-recursion.js';
import type { HandOffResult } from './scenarios/constant-size-handoff.js';
import type { McpDelegationResult } from './scenarios/mcp-delegation.js';
import type { OpenIdConnectResult } from './scenarios/openid-connect.js';
import type { RemoteEqualsLocalResult } from './scenarios/remote-equals-local.js';
import type { RegistryResult } from './scenarios/registry.js';
import type { TrustResult } from './scenarios/trust.js';
import { renderWaterfallSvg } from './waterfall.js';

export interface DemoReport {
  startedAt: string;
  durationMs: number;
  passed: boolean;
  /** Stopped by Ctrl-C (SIGINT) or SIGTERM before the end: never a pass. */
  interrupted: boolean;
  /** The operator config every agent read. */
  configPath: string;
  scenarios: {
    remoteEqualsLocal?: RemoteEqualsLocalResult | { error: string };
    constantSizeHandOff?: HandOffResult | { error: string };
    boundedRecursion?: Omit<BoundedRecursionResult, 'tree'> | { error: string };
    trustAllowlist?: TrustResult | { error: string };
    registry?: RegistryResult | { error: string };
    openIdConnect?: OpenIdConnectResult | { error: string };
    mcpDelegation?: McpDelegationResult | { error: string };
  };
}

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (text: string) => (useColor ? `\u001b[${code}m${text}\u001b[0m` : text);
export const green = paint(32);
export const red = paint(31);
export const bold = paint(1);
export const dim = paint(2);
export const verdict = (passed: boolean): string => (passed ? green('PASS') : red('FAIL'));

/** A one-line progress display: rewrites itself on a TTY, plain lines elsewhere (CI logs). */
export function createProgress(): { update(line: string): void; done(): void } {
  const started = Date.now();
  let last = '';
  return {
    update(line) {
      const text = `${dim(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`)} ${line}`;
      if (process.stdout.isTTY) process.stdout.write(`\r\u001b[2K${text}`);
      else console.log(text);
      last = text;
    },
    done() {
      if (process.stdout.isTTY && last) process.stdout.write('\r\u001b[2K');
    },
  };
}

const bytes = (n: number): string =>
  n >= 1_048_576 ? `${(n / 1_048_576).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;

/** One line per agent the demo started: where it listens, its AgentID, its verified card. */
export function printAgents(agents: readonly AgentSummary[]): void {
  const width = Math.max(...agents.map((agent) => agent.name.length));
  for (const agent of agents) {
    console.log(dim(`   ${agent.name.padEnd(width)}  ${agent.url}  AgentID ${agent.agentId.slice(0, 16)}…  card ${agent.card}`));
  }
}

/** One line: how many of the requests the agents ran were signed by their sender and verified as its AgentID. */
function printSignedCalls(calls: SignedCalls): void {
  const all = calls.requests > 0 && calls.verified === calls.requests;
  console.log(
    `   requests signed by their sender and verified as its AgentID (RFC 9421): ${calls.verified} of ${calls.requests}, ${calls.betweenAgents} between agents: ${verdict(all)}`,
  );
}

export function printRemoteEqualsLocal(result: RemoteEqualsLocalResult): void {
  console.log(`\n${bold('1. Remote ≡ local')}  ${verdict(result.passed)}`);
  for (const item of result.cases) {
    console.log(`   ${item.identical ? green('=') : red('≠')} ${item.name}`);
    console.log(`     local : ${item.local.states.join(' → ')}${item.local.error ? ` ⇒ ${item.local.error}` : ''}`);
    console.log(`     remote: ${item.remote.states.join(' → ')}${item.remote.error ? ` ⇒ ${item.remote.error}` : ''}`);
  }
  printSignedCalls(result.signedCalls);
}

export function printHandOff(result: HandOffResult): void {
  console.log(`\n${bold('2. Constant-size memory hand-off')}  ${verdict(result.passed)}  ${dim(`(dim ${result.dim}, file-system tier)`)}`);
  console.log(`   ${'vectors'.padStart(10)}  ${'payload'.padStart(10)}  ${'A→B body'.padStart(9)}  resolved by B`);
  for (const row of result.rows) {
    console.log(
      `   ${row.vectors.toLocaleString('en-US').padStart(10)}  ${bytes(row.payloadBytes).padStart(10)}  ${`${row.requestBodyBytes} B`.padStart(9)}  ${row.resolvedCount.toLocaleString('en-US')} vectors, witness ${row.checksumMatches ? green('verified') : red('mismatch')}`,
    );
  }
  console.log(`   body ≤ 2 KiB and flat across sizes: ${verdict(result.constantSize)}`);
  printSignedCalls(result.signedCalls);
}

export function printBoundedRecursion(result: BoundedRecursionResult): void {
  console.log(`\n${bold('3. Bounded cost under recursion')}  ${verdict(result.passed)}`);
  console.log(`   cards verified on discovery: ${result.verifiedCards} (JWS EdDSA, AgentID = SHAKE-256 of the key)`);
  console.log(
    `   a ${result.levels}-level binary delegation tree (up to ${result.attemptedTasks} tasks), every task costing $${result.tree.costUsd.toFixed(2)}`,
  );
  console.log(
    `   tasks dispatched: ${result.dispatched}; rejected: ${
      Object.entries(result.rejectedByReason)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(', ') || 'none'
    }`,
  );
  console.log(
    `   spend over trace ${result.traceId}: $${result.spendUsd.toFixed(2)} of maxUsdPerMinute $${result.maxUsdPerMinute.toFixed(2)} (${result.tasksInTrace} tasks)`,
  );
  console.log(
    `   deepest task: depth ${result.deepestDepth} (maxCallDepth ${result.maxCallDepth}); every deeper delegation rejected at dispatch: ${verdict(result.depthLimitHeld)}`,
  );
  console.log(
    `   cycle ${result.cycle.path.join(' → ')}: rejected with ${result.cycle.rejectedWith ?? 'nothing'}, A called ${result.cycle.callsToA} time(s): ${verdict(result.cycle.passed)}`,
  );
  printSignedCalls(result.signedCalls);
  console.log(`\n${renderTreeText(result.tree, 24)}`);
}

export function printTrust(result: TrustResult): void {
  console.log(`\n${bold('4. Trust allowlist: an unlisted agent is refused')}  ${verdict(result.passed)}`);
  const width = Math.max(...result.calls.map((call) => call.caller.length));
  for (const call of result.calls) {
    const served = call.outcome === 'TASK_STATE_COMPLETED';
    const who = call.agentId ? `AgentID ${call.agentId.slice(0, 16)}…` : 'no AgentID';
    console.log(`   ${served ? green('served ') : red('refused')} ${call.caller.padEnd(width)}  ${dim(who)}  ${call.outcome}`);
  }
  console.log(
    dim(`   tasks that reached the gatekeeper's executor: ${result.executions}; callers prove their AgentID by ${result.callerProof}`),
  );
}

export function printRegistry(result: RegistryResult): void {
  console.log(`\n${bold('5. Registry: enroll, find by skill, revoke')}  ${verdict(result.passed)}`);
  const health = Object.entries(result.health)
    .map(([name, status]) => `${name} ${status}`)
    .join(', ');
  console.log(`   enrolled at start: ${result.enrolled} (signed card verified against its origin); prober: ${health}`);
  console.log(`   delegator's peers for skill "work", from a registry search: ${result.peersBySkill.join(', ')}`);
  console.log(`   revoked agent's call before revocation: ${result.revokedCalls.before}`);
  for (const [server, outcome] of Object.entries(result.revokedCalls.after)) {
    const refused = outcome !== 'TASK_STATE_COMPLETED';
    console.log(`   ${refused ? green('refused') : red('served ')} its next call at ${server}: ${outcome}`);
  }
  console.log(`   revocation effective at every server in ${result.revocationEffectiveMs} ms (cache TTL 1000 ms, goal 5000 ms)`);
  console.log(
    `   dropped from the delegator's pool: ${result.droppedFromPool ? 'yes' : 'no'}; its card refused by a client given the registry: ${result.cardRefused ? 'yes' : 'no'}; subtasks served by ${result.delegatedTo.before}, then ${result.delegatedTo.after}`,
  );
}

export function printOpenIdConnect(result: OpenIdConnectResult): void {
  console.log(`\n${bold('6. OpenID Connect: a client that fetched its own token')}  ${verdict(result.passed)}`);
  console.log(`   identity provider (oidc-provider): ${result.issuer}; the agent's card: openIdConnect ${result.openIdConnectUrl}`);
  const width = Math.max(...result.calls.map((call) => call.caller.length));
  for (const call of result.calls) {
    const served = call.outcome === 'TASK_STATE_COMPLETED';
    console.log(
      `   ${served ? green('served ') : red('refused')} ${call.caller.padEnd(width)}  ${call.answer ? dim(`"${call.answer}"`) : call.outcome}`,
    );
  }
  console.log(
    dim(
      `   tokens issued (client credentials, read from the card): ${result.tokenRequests}; tasks that reached the executor: ${result.executions}`,
    ),
  );
}

export function printMcpDelegation(result: McpDelegationResult): void {
  console.log(`\n${bold('7. MCP inside a delegation: one trace, one budget')}  ${verdict(result.passed)}`);
  console.log(`   demo → planner → researcher → MCP tool "${result.toolServer.tool}" at ${result.toolServer.url} (Streamable HTTP)`);
  for (const hop of result.hops) {
    const ok = hop.underRun && hop.serverSpanUnderCall && hop.traceCarried;
    console.log(
      `   ${ok ? green('traced ') : red('lost   ')} tools/call ${hop.item}: span under the researcher's run ${hop.underRun ? 'yes' : 'no'}, traceparent + lineage in _meta ${hop.traceCarried ? 'yes' : 'no'}, server span under it ${hop.serverSpanUnderCall ? 'yes' : 'no'}, cost $${hop.costUsd?.toFixed(3) ?? '?'}`,
    );
  }
  console.log(`   answer: ${result.prices.join('; ')}`);
  console.log(
    `   spend over trace ${result.traceId}: $${result.spendUsd.toFixed(3)} (two tasks + $${result.toolSpendUsd.toFixed(3)} of MCP calls metered into the researcher's task; expected $${result.expectedSpendUsd.toFixed(3)})`,
  );
  printSignedCalls(result.signedCalls);
}

/** Writes the MCP scenario's trace (OTLP JSON) and its waterfall page; returns the paths. */
export async function writeMcpTrace(directory: string, result: McpDelegationResult, traceJson: string): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const tracePath = join(directory, 'mcp-trace.otlp.json');
  await writeFile(tracePath, traceJson);
  const spans = readOtlpJson(traceJson);
  const htmlPath = join(directory, 'mcp-trace.html');
  await writeFile(
    htmlPath,
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>a2aplane demo — MCP inside a delegation</title><body style="font-family:sans-serif;margin:2em"><h1>MCP inside a delegation</h1><p>One trace, ${spans.length} spans (<a href="mcp-trace.otlp.json">OTLP JSON</a>): the planner's call to the researcher, the researcher's MCP tool calls (purple) under its run, each with its cost, and the MCP server's span under each call. Spend over the trace: $${result.spendUsd.toFixed(3)}, of which $${result.toolSpendUsd.toFixed(3)} MCP. Hover a row for its attributes.</p><div style="overflow:auto">${renderWaterfallSvg(spans, `trace ${result.traceId}`)}</div></body></html>\n`,
  );
  return [tracePath, htmlPath];
}

/**
 * Writes demo-report.json, the delegation tree as SVG and an HTML page around it; with the
 * recursion scenario's trace (OTLP JSON), that file too and its waterfall beside the tree.
 */
export async function writeArtifacts(
  directory: string,
  report: DemoReport,
  recursion?: BoundedRecursionResult,
  traceJson?: string,
): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const written: string[] = [];
  const reportPath = join(directory, 'demo-report.json');
  await writeFile(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  written.push(reportPath);
  if (recursion) {
    const title = `Delegation tree — trace ${recursion.traceId}: $${recursion.spendUsd.toFixed(2)} of $${recursion.maxUsdPerMinute.toFixed(2)}/min, maxCallDepth ${recursion.maxCallDepth}`;
    const svg = renderTreeSvg(recursion.tree, title);
    const svgPath = join(directory, 'delegation-tree.svg');
    await writeFile(svgPath, svg);
    let waterfall = '';
    if (traceJson !== undefined) {
      const tracePath = join(directory, 'recursion-trace.otlp.json');
      await writeFile(tracePath, traceJson);
      written.push(tracePath);
      const spans = readOtlpJson(traceJson);
      const agents = new Set(spans.map((span) => span.attributes['gen_ai.agent.id']).filter((id) => id !== undefined)).size;
      waterfall = `<section style="flex:1 1 0;min-width:40em"><h2>Trace waterfall</h2><p>One trace, ${spans.length} spans across ${agents} agents (OpenTelemetry, <a href="recursion-trace.otlp.json">OTLP JSON</a>): each server span is a child of its caller's client span, which is a child of the caller's executor run. Hover a row for its attributes.</p><div style="overflow:auto;max-height:90vh">${renderWaterfallSvg(spans, `trace ${recursion.traceId}`)}</div></section>`;
    }
    const htmlPath = join(directory, 'delegation-tree.html');
    await writeFile(
      htmlPath,
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>a2aplane demo — delegation tree</title><body style="font-family:sans-serif;margin:2em"><h1>Bounded cost under recursion</h1><div style="display:flex;flex-wrap:wrap;gap:2em"><section style="flex:1 1 0;min-width:40em"><h2>Delegation tree</h2><p>${recursion.dispatched} tasks dispatched; rejected: ${Object.entries(
        recursion.rejectedByReason,
      )
        .map(([r, n]) => `${n} ${r}`)
        .join(
          ', ',
        )}. Hover a node for its agent, depth and cost.</p><div style="overflow:auto">${svg}</div></section>${waterfall}</div></body></html>\n`,
    );
    written.push(svgPath, htmlPath);
  }
  return written;
}
