import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { parseOperatorConfig } from '../src/config-files/index.js';
import { createGovernor, GovernorOptionsError, createInMemoryBudgetLedger, materializeConfig, OperatorConfigSchema } from '../src/index.js';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
}

/** Every object key of a zod schema, as dotted paths (`*` for record values). */
function keyPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  if (def.type === 'optional' || def.type === 'default') return keyPaths(def.innerType!, prefix);
  if (def.type === 'record') return keyPaths(def.valueType!, `${prefix}.*`);
  if (def.type !== 'object') return [];
  return Object.entries(def.shape!).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...keyPaths(value, path)];
  });
}

describe('docs/governance.md operator config reference', () => {
  it('documents every key of OperatorConfigSchema', async () => {
    const docs = await readFile(new URL('../../../docs/governance.md', import.meta.url), 'utf8');
    const paths = keyPaths(OperatorConfigSchema);
    expect(paths).toContain('budget.global.max_usd_per_minute');
    expect(paths).toContain('policy.callers.*.max_concurrency');
    // A key is documented as `key` in a table, or by its dotted path (`budget.global`).
    const missing = paths.filter((path) => !docs.includes(`\`${path.split('.').pop()}\``) && !docs.includes(path.replaceAll('.*', '')));
    expect(missing).toEqual([]);
    for (const block of ['`routing`', '`budget.global`', '`policy.default`', '`policy.callers.<caller id>`', '`recursion`']) {
      expect(docs).toContain(block);
    }
  });
});

describe('docs/governance.md sample config', () => {
  it('starts a Governor: its USD cap comes with a cost block; without the block the Governor refuses to start', async () => {
    const docs = await readFile(new URL('../../../docs/governance.md', import.meta.url), 'utf8');
    const toml = /```toml\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(toml).toContain('max_usd_per_minute');
    const start = (text: string) => {
      const parsed = parseOperatorConfig(text, 'toml');
      if (!parsed.ok) throw new Error(`the sample does not parse: ${JSON.stringify(parsed.violations)}`);
      const config = materializeConfig(parsed.config, { knownSelectors: ['cheapest_under_latency', 'lowest_latency'] });
      const budget = createInMemoryBudgetLedger(config.budget ?? {});
      return createGovernor({ selfAgentId: 'self', budget, ...(config.estimateCost ? { estimateCost: config.estimateCost } : {}) });
    };
    expect(start(toml ?? '').selfAgentId).toBe('self');
    let error: unknown;
    try {
      start((toml ?? '').replace(/\[cost\]\ndefault_usd = [0-9.]+\n/, ''));
    } catch (caught) {
      error = caught;
    }
    expect(GovernorOptionsError.isInstance(error)).toBe(true);
  });
});
