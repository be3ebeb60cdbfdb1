import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`; `undefined`
 * without procfs. CPU per request is steadier than req/s on a shared 2-core machine.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at the last ')'; utime and stime are 12 and 13 after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ: 100 on every Linux ABI Node supports
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in bytes (`VmRSS` of `/proc/<pid>/status`); `undefined` without procfs. */
export function processRssBytes(pid: number | undefined): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
