import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  type OperatorConfig,
  createInMemoryBudgetLedger,
  materializeConfig,
  mergeOperatorConfig,
  validateOperatorConfig,
} from '../src/index.js';
import { parseOperatorConfig } from '../src/config-files/index.js';
import { loadOperatorConfigFile } from '../src/node/index.js';

const SELECTORS = ['cheapest_under_latency', 'lowest_latency', 'round_robin', 'capability_match'] as const;

// The example of ADR-159 r3 "Should routing + policy be exposed as config".
const TOML = `
[routing]
default_selector = "cheapest_under_latency"
latency_budget_ms = 2000
fallback = "lowest_latency"

[budget.global]
max_usd_per_minute = 10.0
overflow = "shed"

[policy.default]
max_cost_usd = 0.05
max_duration_ms = 30000
allowed_skills = ["rag.query", "embed.vectorize"]

[policy.callers.trusted-peer]
max_concurrency = 4

[recursion]
max_call_depth = 8
deny_revisit = true
`;

const YAML = `
routing:
  default_selector: cheapest_under_latency
  latency_budget_ms: 2000
  fallback: lowest_latency
budget:
  global:
    max_usd_per_minute: 10.0
    overflow: shed
policy:
  default:
    max_cost_usd: 0.05
    max_duration_ms: 30000
    allowed_skills: [rag.query, embed.vectorize]
  callers:
    trusted-peer:
      max_concurrency: 4
recursion:
  max_call_depth: 8
  deny_revisit: true
`;

const EXPECTED: OperatorConfig = {
  routing: { default_selector: 'cheapest_under_latency', latency_budget_ms: 2000, fallback: 'lowest_latency' },
  budget: { global: { max_usd_per_minute: 10, overflow: 'shed' } },
  policy: {
    default: { max_cost_usd: 0.05, max_duration_ms: 30000, allowed_skills: ['rag.query', 'embed.vectorize'] },
    callers: { 'trusted-peer': { max_concurrency: 4 } },
  },
  recursion: { max_call_depth: 8, deny_revisit: true },
};

describe('operator config (ADR-159 r3 config loader)', () => {
  it.each([
    ['toml', TOML],
    ['yaml', YAML],
    ['json', JSON.stringify(EXPECTED)],
  ] as const)('parses the ADR example as %s', (format, text) => {
    expect(parseOperatorConfig(text, format)).toEqual({ ok: true, config: EXPECTED });
  });

  it('treats an empty YAML document as an empty config', () => {
    expect(parseOperatorConfig('', 'yaml')).toEqual({ ok: true, config: {} });
  });

  it.each([
    ['json', '{"routing": {'],
    ['yaml', 'routing:\n  default_selector: [unclosed\n'],
    ['yaml', 'recursion:\n  max_call_depth: 1\n  max_call_depth: 2\n'],
    ['toml', '[budget.global\nmax_usd_per_minute = 1'],
    ['toml', '[recursion]\nmax_call_depth = 1\nmax_call_depth = 2\n'],
  ] as const)('reports broken %s syntax as a violation, never throws', (format, text) => {
    const result = parseOperatorConfig(text, format);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations.length).toBeGreaterThan(0);
    expect(result.violations[0]?.description).toMatch(new RegExp(`invalid ${format}`, 'i'));
  });

  it('lists every wrong type and unknown key', () => {
    const text = `
[budget.global]
max_usd_per_minute = "ten"
overflow = "drop"
max_tasks_per_minute = 1.5

[policy.default]
allowed_skills = "rag.query"
max_tokens = -1

[recursion]
deny_revisit = "yes"
max_depth = 3
`;
    const result = parseOperatorConfig(text, 'toml');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations.map((v) => v.field).sort()).toEqual([
      'budget.global.max_tasks_per_minute',
      'budget.global.max_usd_per_minute',
      'budget.global.overflow',
      'policy.default.allowed_skills',
      'policy.default.max_tokens',
      'recursion',
      'recursion.deny_revisit',
    ]);
    expect(result.violations.find((v) => v.field === 'recursion')?.description).toMatch(/max_depth/);
  });

  it('rejects a non-object document and ignores a __proto__ caller', () => {
    expect(parseOperatorConfig('[1]', 'json')).toMatchObject({ ok: false, violations: [{ field: '' }] });
    expect(parseOperatorConfig('42', 'yaml')).toMatchObject({ ok: false, violations: [{ field: '' }] });
    // zod skips a `__proto__` key, so it can never replace the callers map's prototype.
    const proto = parseOperatorConfig('{"policy":{"callers":{"__proto__":{"max_tokens":1},"x":{}}}}', 'json');
    expect(proto.ok && Object.keys(proto.config.policy?.callers ?? {})).toEqual(['x']);
    expect(proto.ok && Object.hasOwn(proto.config.policy?.callers ?? {}, 'max_tokens')).toBe(false);
  });

  it('flags max_queue_depth without overflow = "queue" at materialization', () => {
    expect(() => materializeConfig({ budget: { global: { max_queue_depth: 5 } } }, { knownSelectors: [] })).toThrow(
      /budget\.global\.max_queue_depth/,
    );
  });

  it('materializes the config into ledger, policy, recursion and routing options', () => {
    const parsed = parseOperatorConfig(TOML, 'toml');
    if (!parsed.ok) throw new Error('fixture must parse');
    const materialized = materializeConfig(parsed.config, { knownSelectors: SELECTORS });
    expect(materialized).toEqual({
      routing: { defaultSelector: 'cheapest_under_latency', fallback: ['lowest_latency'], latencyBudgetMs: 2000 },
      budget: { maxUsdPerMinute: 10, overflow: { kind: 'shed' } },
      policy: {
        default: { maxCostUsd: 0.05, maxDurationMs: 30000, allowedSkills: ['rag.query', 'embed.vectorize'] },
        perCaller: { 'trusted-peer': { maxConcurrency: 4 } },
      },
      recursion: { maxCallDepth: 8, denyRevisit: true },
    });
    expect(() => createInMemoryBudgetLedger(materialized.budget)).not.toThrow();
  });

  it('defaults max_queue_depth under overflow = "queue"', () => {
    const materialized = materializeConfig({ budget: { global: { max_tasks_per_minute: 5, overflow: 'queue' } } }, { knownSelectors: [] });
    expect(materialized.budget?.overflow).toEqual({ kind: 'queue', maxQueueDepth: 100 });
  });

  it('refuses to start with an unknown selector, listing it', () => {
    const config: OperatorConfig = { routing: { default_selector: 'fastest_please', fallback: ['lowest_latency', 'nope'] } };
    let caught: unknown;
    try {
      materializeConfig(config, { knownSelectors: SELECTORS });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const violations = (caught as ConfigError).violations;
    expect(violations.map((v) => v.field)).toEqual(['routing.default_selector', 'routing.fallback[1]']);
    expect(violations[0]?.description).toContain('fastest_please');
    expect((caught as ConfigError).message).toContain('nope');
  });

  it('merges with operator precedence, and code precedence when override is not allowed', () => {
    const defaults: OperatorConfig = {
      budget: { global: { max_usd_per_minute: 1, max_tasks_per_minute: 100 } },
      policy: { default: { allowed_skills: ['a', 'b'], max_cost_usd: 0.1 } },
      recursion: { max_call_depth: 4 },
    };
    const fromFile: OperatorConfig = {
      budget: { global: { max_usd_per_minute: 10 } },
      policy: { default: { allowed_skills: ['c'] } },
      routing: { default_selector: 'lowest_latency' },
    };
    expect(mergeOperatorConfig(defaults, fromFile)).toEqual({
      budget: { global: { max_usd_per_minute: 10, max_tasks_per_minute: 100 } },
      policy: { default: { allowed_skills: ['c'], max_cost_usd: 0.1 } },
      recursion: { max_call_depth: 4 },
      routing: { default_selector: 'lowest_latency' },
    });
    expect(mergeOperatorConfig(defaults, fromFile, { configOverrideAllowed: false })).toEqual({
      budget: { global: { max_usd_per_minute: 1, max_tasks_per_minute: 100 } },
      policy: { default: { allowed_skills: ['a', 'b'], max_cost_usd: 0.1 } },
      recursion: { max_call_depth: 4 },
      routing: { default_selector: 'lowest_latency' },
    });
  });
});

describe('loadOperatorConfigFile (node entry)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-governance-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['config.toml', TOML],
    ['config.yaml', YAML],
    ['config.yml', YAML],
    ['config.json', JSON.stringify(EXPECTED)],
  ])('loads %s by extension', async (name, text) => {
    const path = join(dir, name);
    await writeFile(path, text);
    await expect(loadOperatorConfigFile(path)).resolves.toEqual(EXPECTED);
  });

  it('throws ConfigError with every violation, for unreadable files and unknown extensions', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ recursion: { max_call_depth: 'x', deny_revisit: 1 } }));
    await expect(loadOperatorConfigFile(bad)).rejects.toMatchObject({
      name: 'ConfigError',
      violations: [{ field: 'recursion.max_call_depth' }, { field: 'recursion.deny_revisit' }],
    });
    await expect(loadOperatorConfigFile(join(dir, 'missing.toml'))).rejects.toBeInstanceOf(ConfigError);
    expect(ConfigError.isInstance(await loadOperatorConfigFile(join(dir, 'missing.toml')).catch((e: unknown) => e))).toBe(true);
    expect(ConfigError.isInstance(new Error('x'))).toBe(false);
    await expect(loadOperatorConfigFile(join(dir, 'config.ini'))).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('root entry without text parsers', () => {
  it('validateOperatorConfig checks an already parsed value as parseOperatorConfig does', () => {
    const text = '{"budget":{"global":{"max_usd_per_minute":1,"overflow":"queue"}},"recursion":{"max_call_depth":4}}';
    expect(validateOperatorConfig(JSON.parse(text))).toEqual(parseOperatorConfig(text, 'json'));
    expect(validateOperatorConfig(undefined)).toEqual({ ok: true, config: {} });
    expect(validateOperatorConfig({ budget: { global: { overflow: 'drop' } } })).toMatchObject({
      ok: false,
      violations: [{ field: 'budget.global.overflow' }],
    });
  });

  it('keeps yaml and smol-toml out of every module the root entry reaches', async () => {
    const { readFile, readdir } = await import('node:fs/promises');
    const src = new URL('../src/', import.meta.url);
    const rootModules = (await readdir(src)).filter((name) => name.endsWith('.ts'));
    for (const name of rootModules) {
      const text = await readFile(new URL(name, src), 'utf8');
      expect(text, name).not.toMatch(/from '(yaml|smol-toml)'/);
      expect(text, name).not.toMatch(/from '\.\/(config-files|node)\//);
    }
    const root = await import('../src/index.js');
    expect('parseOperatorConfig' in root).toBe(false);
  });
});
