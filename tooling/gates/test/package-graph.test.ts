import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs gate module without declarations
import { checkPackageGraph, comparePackageGraphs, parseGraphBlock, privateDependencyErrors, workspaceGraph } from '../package-graph.mjs';

type Graph = Map<string, { requires: string[]; optional: string[]; planned: boolean }>;

const doc = (lines: string) => `# x\n\n\`\`\`text package-graph\n${lines}\n\`\`\`\n`;

describe('the package graph of docs/architecture.md (gate graph)', () => {
  it('agrees with every package.json of the workspace', () => {
    expect(checkPackageGraph()).toEqual([]);
  });

  it('reads dependencies, optional peers and planned packages', () => {
    const { graph, errors } = parseGraphBlock(doc('a -> c, b; optional d\nb\nz -> a (planned)')) as { graph: Graph; errors: string[] };
    expect(errors).toEqual([]);
    expect(graph.get('a')).toEqual({ requires: ['b', 'c'], optional: ['d'], planned: false });
    expect(graph.get('b')).toEqual({ requires: [], optional: [], planned: false });
    expect(graph.get('z')).toEqual({ requires: ['a'], optional: [], planned: true });
  });

  it('fails on a missing package, a missing or extra edge, an optional peer drawn as required, and a planned package that exists', () => {
    const actual = workspaceGraph() as Graph;
    const drawn: Graph = new Map(
      [...actual].map(([name, line]) => [name, { ...line, requires: [...line.requires], optional: [...line.optional] }]),
    );
    drawn.delete('a2a-otel');
    const client = drawn.get('a2a-client');
    if (client === undefined) throw new Error('a2a-client is not in the workspace');
    client.requires = client.requires.filter((dep) => dep !== 'a2a-identity');
    const redis = drawn.get('a2a-redis');
    if (redis === undefined) throw new Error('a2a-redis is not in the workspace');
    redis.requires = [...redis.requires, ...redis.optional].sort();
    redis.optional = [];
    const routing = drawn.get('a2a-routing');
    if (routing === undefined) throw new Error('a2a-routing is not in the workspace');
    routing.planned = true;
    drawn.set('a2a-ghost', { requires: [], optional: [], planned: false });
    const errors = comparePackageGraphs(drawn, actual) as string[];
    expect(errors).toEqual(
      expect.arrayContaining([
        'a2a-otel is missing from the graph',
        expect.stringMatching(/^a2a-client: the graph says requires/),
        expect.stringMatching(/^a2a-redis: the graph says requires/),
        expect.stringMatching(/^a2a-redis: the graph says optional/),
        expect.stringMatching(/^a2a-routing exists now/),
        expect.stringMatching(/^a2a-ghost is in the graph but not in packages/),
      ]),
    );
    expect(errors).toHaveLength(6);
  });

  it('fails on a private workspace package in what a published package ships (devDependencies are fine)', () => {
    const manifests = [
      { name: '@a2aplane/test-utils', private: true },
      { name: '@a2aplane/a', dependencies: { '@a2aplane/test-utils': 'workspace:*' } },
      { name: '@a2aplane/b', peerDependencies: { '@a2aplane/test-utils': 'workspace:*' } },
      { name: '@a2aplane/c', devDependencies: { '@a2aplane/test-utils': 'workspace:*' } },
      { name: '@a2aplane/app', private: true, dependencies: { '@a2aplane/test-utils': 'workspace:*' } },
    ];
    expect(privateDependencyErrors(manifests)).toEqual([
      '@a2aplane/a: private package @a2aplane/test-utils in dependencies (devDependencies only)',
      '@a2aplane/b: private package @a2aplane/test-utils in peerDependencies (devDependencies only)',
    ]);
  });

  it('reports a document without the block', () => {
    expect(parseGraphBlock('# nothing here').errors).toEqual(['no ```text package-graph block']);
  });
});
