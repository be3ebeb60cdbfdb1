import { parseBackend } from './backend.js';
import { runCluster } from './cluster.js';

// `pnpm demo:cluster [-- --backend postgres]`: three replicas of one agent on the local Redis
// (REDIS_URL), with tasks and event logs in Redis or in PostgreSQL (POSTGRES_URL).
const flag = process.argv.indexOf('--backend');
const backend = parseBackend(flag === -1 ? undefined : process.argv[flag + 1]);
const started = Date.now();
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`);
try {
  const report = await runCluster({ backend, onProgress: log });
  const mark = (passed: boolean): string => (passed ? 'PASS' : 'FAIL');
  console.log('');
  console.log(
    `${mark(report.spread.passed)}  spread: served by ${JSON.stringify(report.spread.servedBy)}; ${report.spread.readOnOtherReplica}/30 read back on another replica`,
  );
  console.log(
    `${mark(report.resume.passed)}  resume: ${report.resume.beforeKill} chunks from ${report.resume.killed} before its kill, ${report.resume.afterResume} from ${report.resume.resumedOn}; lost ${report.resume.lost}, duplicated ${report.resume.duplicated}`,
  );
  console.log(
    `${mark(report.cancel.passed)}  cancel: sent to ${report.cancel.canceledVia}, task ${report.cancel.state}, executor aborted on ${report.cancel.abortedOn ?? 'none'}`,
  );
  console.log(
    `${mark(report.tree.passed)}  budget: ${report.tree.tasks} tasks of a ${report.tree.levels}-level tree on ${JSON.stringify(report.tree.byReplica)}; spend $${report.tree.spendUsd.toFixed(2)} of $${report.tree.maxUsdPerMinute.toFixed(2)} (shared ledger); governors refused ${JSON.stringify(report.tree.rejected)}; deepest task at depth ${report.tree.deepest}, RECURSION_LIMIT at depth ${report.tree.recursionRefusedAt.join(', ') || 'none'} (maxCallDepth ${report.tree.maxCallDepth})`,
  );
  process.exitCode = report.passed ? 0 : 1;
} catch (error) {
  console.error(`cluster demo failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error('It needs a Redis at REDIS_URL (default redis://127.0.0.1:6379): redis-server --daemonize yes --port 6379 --save ""');
  if (backend === 'postgres') console.error('and a PostgreSQL at POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).');
  process.exitCode = 1;
}
