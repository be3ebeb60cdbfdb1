import { resolve } from 'node:path';
import { createControlPlane, DEFAULT_CONFIG_PATH } from './control-plane.js';
import {
  bold,
  createProgress,
  type DemoReport,
  dim,
  printBoundedRecursion,
  printHandOff,
  printRemoteEqualsLocal,
  verdict,
  writeArtifacts,
} from './report.js';
import { type BoundedRecursionResult, runBoundedRecursion } from './scenarios/bounded-recursion.js';
import { runConstantSizeHandOff } from './scenarios/constant-size-handoff.js';
import { runRemoteEqualsLocal } from './scenarios/remote-equals-local.js';

// `pnpm demo`: several governed agents on loopback, ADR-159's three acceptance tests, a report.
// Every agent is closed by the scenario that started it (finally blocks), also on failure; on
// Ctrl-C we exit after the running scenario has closed its servers.
const outputDirectory = resolve(process.env.INIT_CWD ?? process.cwd(), process.env.DEMO_OUTPUT_DIR ?? 'demo-output');
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  console.log('\ninterrupted: closing agents…');
  setTimeout(() => process.exit(130), 5_000).unref();
});

const message = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
const started = Date.now();
const progress = createProgress();
console.log(bold('a2aplane control-plane demo'));
console.log(dim(`operator config: ${DEFAULT_CONFIG_PATH}`));

const report: DemoReport = { startedAt: new Date(started).toISOString(), durationMs: 0, passed: false, scenarios: {} };
let recursion: BoundedRecursionResult | undefined;

try {
  const remoteEqualsLocal = await runRemoteEqualsLocal({ onProgress: progress.update });
  report.scenarios.remoteEqualsLocal = remoteEqualsLocal;
  progress.done();
  printRemoteEqualsLocal(remoteEqualsLocal);
} catch (error) {
  report.scenarios.remoteEqualsLocal = { error: message(error) };
}

if (!interrupted) {
  try {
    const handOff = await runConstantSizeHandOff({ onProgress: progress.update });
    report.scenarios.constantSizeHandOff = handOff;
    progress.done();
    printHandOff(handOff);
  } catch (error) {
    report.scenarios.constantSizeHandOff = { error: message(error) };
  }
}

if (!interrupted) {
  try {
    recursion = await runBoundedRecursion(await createControlPlane(), { onProgress: progress.update });
    const { tree: _tree, ...summary } = recursion;
    report.scenarios.boundedRecursion = summary;
    progress.done();
    printBoundedRecursion(recursion);
  } catch (error) {
    report.scenarios.boundedRecursion = { error: message(error) };
  }
}

progress.done();
const outcomes = Object.entries(report.scenarios).map(([name, result]) => ({
  name,
  passed: result !== undefined && 'passed' in result && result.passed === true,
  error: result !== undefined && 'error' in result ? result.error : undefined,
}));
report.passed = !interrupted && outcomes.length === 3 && outcomes.every((outcome) => outcome.passed);
report.durationMs = Date.now() - started;
const written = await writeArtifacts(outputDirectory, report, recursion);

console.log(`\n${bold('Summary')}`);
for (const outcome of outcomes) console.log(`   ${verdict(outcome.passed)} ${outcome.name}${outcome.error ? ` — ${outcome.error}` : ''}`);
console.log(dim(`\nwrote ${written.join(', ')}`));
console.log(`${report.passed ? 'All three acceptance tests passed' : 'An acceptance test failed'} in ${(report.durationMs / 1000).toFixed(1)} s.`);
process.exit(report.passed ? 0 : 1);
