import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const TASKSET = '/usr/bin/taskset';

/**
 * Where a suite's server and load generator run. On a 2-core machine the load generator would
 * otherwise take turns with the server on both cores, and its own per-request cost would leak
 * into the server's figures (decision 0036). `serverCpu` is undefined when nothing is pinned; `note` is one
 * sentence for the report: where the server and the load generator ran.
 */
export type CpuPlan = { serverCpu: number | undefined; note: string; release(): void };

/** The CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status), or undefined without procfs. */
function allowedCpus(): number[] | undefined {
  try {
    const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return list?.split(',').flatMap((range) => {
      const [from = Number.NaN, to = from] = range.split('-').map(Number);
      return Array.from({ length: to - from + 1 || 0 }, (_, i) => from + i);
    });
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
 * `startServer(..., { cpu })` then pins. `release()` gives this process its CPUs back. Without taskset,
 * with fewer than two CPUs or with `A2A_BENCH_PIN=0`, nothing is pinned and the note says why.
 */
export function pinLoadGenerator(): CpuPlan {
  const cpus = allowedCpus();
  const unpinned = (reason: string): CpuPlan => ({
    serverCpu: undefined,
    note: `**Not pinned** (${reason}): server and load generator share the machine's cores.`,
    release: () => undefined,
  });
  if (process.env.A2A_BENCH_PIN === '0') return unpinned('A2A_BENCH_PIN=0');
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
    serverCpu,
    note: `Server pinned to CPU ${serverCpu}, load generator (the bench process) to CPU ${loadCpu}, with taskset; other work on the machine is not pinned and can still share either CPU.`,
    release: () => {
      if (!released) setAffinity(process.pid, cpus.join(','));
      released = true;
    },
  };
}

/** The command that starts `args` on `cpu` (taskset execs it, so the pid is the program's own). */
export function pinnedCommand(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [command, args] : [TASKSET, ['-c', String(cpu), command, ...args]];
}
