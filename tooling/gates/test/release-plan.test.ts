import getReleasePlan from '@changesets/get-release-plan';
import { describe, expect, it } from 'vitest';
import { publishedPackages, repoRoot } from './workspace.js';

const RANK = { none: 0, patch: 1, minor: 2, major: 3 } as const;
type BumpType = keyof typeof RANK;

// The plan `changeset version` would apply to the pending changesets. Changesets bumps a package
// that lists another of ours as a peer dependency to a major whenever that peer leaves the range;
// such a cascade must be a decision (a changeset naming the major), never a side effect.
describe('release plan of the pending changesets', async () => {
  const plan = await getReleasePlan(repoRoot);
  const published = new Set(publishedPackages(['packages', 'apps']).map((pkg) => pkg.manifest.name));

  it('versions published packages only (apps and tooling are private and ignored, but for the published console)', () => {
    const unexpected = plan.releases
      .filter((release) => release.type !== 'none' && !published.has(release.name))
      .map((release) => release.name);
    expect(unexpected).toEqual([]);
  });

  it('bumps no package further than a changeset asks for it', () => {
    const declared = new Map<string, BumpType>();
    for (const changeset of plan.changesets) {
      for (const release of changeset.releases) {
        const current = declared.get(release.name) ?? 'none';
        if (RANK[release.type] > RANK[current]) declared.set(release.name, release.type);
      }
    }
    const cascaded = plan.releases
      .filter((release) => release.type === 'major' && declared.get(release.name) !== 'major')
      .map((release) => `${release.name} ${release.oldVersion} -> ${release.newVersion}`);
    expect(
      cascaded,
      'a peer dependency left its range: widen the peer range, or add a changeset that names the major deliberately',
    ).toEqual([]);
  });
});
