import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const TASKSET = '/usr/bin/taskset';

/**
 * Where a suite's server and load generator run. On a 2-core machine the load generator would
 * otherwise take turns with the server on both cores, and its own per-request cost would leak
 * into the server's figures (decision 0036).
 */
export type CpuPlan =
  | { pinned: true; serverCpu: number; loadCpu: number; release(): void }
  | { pinned: false; reason: string; release(): void };

/** The CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status), or undefined without procfs. */
function allowedCpus(): number[] | undefined {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Cpus_allowed_list:'));
    if (line === undefined) return undefined;
    const cpus: number[] = [];
    for (const part of line
      .slice(line.indexOf(':') + 1)
      .trim()
      .split(',')) {
      const [from, to = from] = part.split('-').map(Number);
      if (from === undefined || to === undefined || Number.isNaN(from) || Number.isNaN(to)) return undefined;
      for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
    }
    return cpus;
  } catch {
    return undefined;
  }
}

/** Sets the affinity of every thread of `pid` (`taskset -a`: libuv and V8 threads too). */
function setAffinity(pid: number, cpus: string): void {
  execFileSync(TASKSET, ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });
}

/**
 * Pins this process (the load generator) to one CPU and names another for the server, which
 * `startServer(..., { cpu })` then pins. `release()` gives this process its CPUs back, so later
 * suites (and children they start without `cpu`) are not confined. Without taskset or with fewer
 * than two CPUs nothing is pinned and `reason` says why: suites print it, never silently unpinned.
 */
export function pinLoadGenerator(): CpuPlan {
  const cpus = allowedCpus();
  const unpinned = (reason: string): CpuPlan => ({ pinned: false, reason, release: () => undefined });
  if (!existsSync(TASKSET)) return unpinned(`${TASKSET} not found`);
  if (cpus === undefined) return unpinned('no /proc/self/status to read the allowed CPUs from');
  if (cpus.length < 2) return unpinned(`only ${cpus.length} CPU allowed`);
  const [loadCpu, serverCpu] = cpus as [number, number];
  try {
    setAffinity(process.pid, String(loadCpu));
  } catch (error) {
    return unpinned(`taskset failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  let released = false;
  return {
    pinned: true,
    serverCpu,
    loadCpu,
    release: () => {
      if (released) return;
      released = true;
      setAffinity(process.pid, cpus.join(','));
    },
  };
}

/** One sentence for a suite's report: where the server, the load generator and Redis ran. */
export function describePinning(plan: CpuPlan, redis = false): string {
  const redisNote = redis ? ' Redis (the Redis rows) is a system service on the same machine and runs unpinned, on either CPU.' : '';
  return plan.pinned
    ? `Server pinned to CPU ${plan.serverCpu}, load generator (the bench process) to CPU ${plan.loadCpu}, with taskset; other work on the machine is not pinned and can still share either CPU.${redisNote}`
    : `**Not pinned** (${plan.reason}): server and load generator share the machine's cores.${redisNote}`;
}

/** The command that starts `args` on `cpu` (taskset execs it, so the pid is the program's own). */
export function pinnedCommand(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [command, args] : [TASKSET, ['-c', String(cpu), command, ...args]];
}
