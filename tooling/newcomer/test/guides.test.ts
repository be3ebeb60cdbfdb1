import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGuide } from '../src/markdown-steps.js';
import { runGuide } from '../src/run-guide.js';
import { createScratchProject, type PackedPackages, packWorkspace } from '../src/scratch-project.js';

// The docs as a newcomer meets them: every package packed as npm would publish it, installed with npm
// into an empty project outside the repository, and every step of the guide run exactly as written.
const root = join(import.meta.dirname, '..', '..', '..');
const guides = ['docs/getting-started.md'];
const packs = join(tmpdir(), `a2aplane-packs-${process.pid}`);
let packed: PackedPackages;

beforeAll(() => {
  packed = packWorkspace(root, packs);
}, 300_000);
afterAll(() => rmSync(packs, { recursive: true, force: true }));

describe.each(guides)('%s, run from npm in an empty project', (file) => {
  it('runs every step as written and shows the output the guide shows', async () => {
    const { dir: project, packed: local } = createScratchProject(packed);
    try {
      const guide = readGuide(readFileSync(join(root, file), 'utf8'));
      expect(guide.steps.length).toBeGreaterThan(0);
      const run = await runGuide({
        guide,
        name: file,
        project,
        packed: local,
        env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
      });
      console.log(`${file}: ${guide.steps.length} steps in ${Math.round(run.elapsedMs / 1000)} s\n  ${run.log.join('\n  ')}`);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
