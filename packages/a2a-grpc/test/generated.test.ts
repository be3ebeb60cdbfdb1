import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const pkg = join(import.meta.dirname, '..');
const committed = join(pkg, 'src', 'gen');
const fresh = mkdtempSync(join(tmpdir(), 'a2a-grpc-gen-check-'));
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

describe('generated code', () => {
  it('src/gen is what `pnpm --filter @a2aplane/a2a-grpc generate` makes of proto/a2a.proto (regenerate and commit when this fails)', () => {
    execFileSync(process.execPath, [join(pkg, 'scripts', 'generate.mjs'), fresh], { stdio: 'pipe' });
    const expected = files(fresh);
    const actual = files(committed);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [file, text] of expected) expect(actual.get(file), file).toBe(text);
  }, 60_000);
});
