// What the replay cache costs a busy server per signed request, garbage collection included:
// `pnpm --filter bench exec tsx src/nonce-cache-micro.ts [adds per block] [garbage bytes per add]`.
// Each block adds fresh nonce keys (built as the verifier builds them) to a fresh cache while
// making a server-like amount of short-lived garbage per add (default 30 KB, what the verified
// bench server allocates per request), so the young-generation collections run at the server's
// rate and the cache's entries get copied, promoted and marked as they would there. Rows: this
// build's cache, `A2A_VERIFY_BASELINE`'s (default /work/base, if built), and no cache at all;
// blocks interleaved, medians over rounds of process CPU per add and main-thread GC time per add
// (decision 0042).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

interface CacheModule {
  createNonceCache(): { add(key: string, expiresAtMs: number, owner: string): boolean };
}
const load = async (root: string): Promise<CacheModule> =>
  (await import(pathToFileURL(resolve(root, 'packages/a2a-identity/dist/index.js')).href)) as CacheModule;

const ADDS = Number(process.argv[2] ?? 60_000);
const GARBAGE_BYTES = Number(process.argv[3] ?? 30_000);
const ROUNDS = 5;
const baselineRoot = process.env.A2A_VERIFY_BASELINE ?? '/work/base';
const rows: Record<string, () => { add(key: string, expiresAtMs: number, owner: string): boolean }> = {};
const here = await load(resolve(import.meta.dirname, '../../..'));
rows['this build'] = () => here.createNonceCache();
if (existsSync(resolve(baselineRoot, 'packages/a2a-identity/dist/index.js'))) {
  const baseline = await load(baselineRoot);
  rows.baseline = () => baseline.createNonceCache();
}
rows['no cache'] = () => ({ add: () => true });

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

const agentPrefix = 'f'.repeat(16);
const keep: unknown[] = [];
const cpu = new Map<string, number[]>();
const gc = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round++) {
  const names = Object.keys(rows);
  for (const name of round % 2 ? names : [...names].reverse()) {
    const cache = (rows[name] as () => { add(key: string, expiresAtMs: number, owner: string): boolean })();
    const expiresAt = Date.now() + 90_000;
    gcMs = 0;
    const started = process.cpuUsage();
    for (let i = 0; i < ADDS; i++) {
      const garbage = new Array(Math.floor(GARBAGE_BYTES / 64));
      for (let j = 0; j < garbage.length; j++) garbage[j] = { j, text: `x${j}` };
      keep[i & 7] = garbage;
      // The verifier's key: an AgentID prefix and a 96-bit base64url nonce, flattened.
      const key = `${agentPrefix}:${randomBytes(12).toString('base64url')}`;
      key.charCodeAt(16);
      if (!cache.add(key, expiresAt, agentPrefix)) throw new Error(`${name}: a fresh nonce was refused`);
    }
    const used = process.cpuUsage(started);
    await new Promise((done) => setTimeout(done, 50));
    if (round === 0) continue; // warm-up round
    cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / ADDS]);
    gc.set(name, [...(gc.get(name) ?? []), (gcMs * 1000) / ADDS]);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
for (const [name, values] of cpu) {
  process.stdout.write(
    `${name}: ${median(values).toFixed(2)} µs CPU per add (rounds ${values.map((v) => v.toFixed(1)).join(' / ')}), main-thread GC ${median(gc.get(name) ?? []).toFixed(2)} µs per add\n`,
  );
}
