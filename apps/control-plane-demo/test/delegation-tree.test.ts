import { describe, expect, it } from 'vitest';
import { countNodes, type DelegationNode, renderTreeSvg, renderTreeText } from '../src/delegation-tree.js';

const leaf = (agent: string, depth: number, extra: Partial<DelegationNode> = {}): DelegationNode => ({
  agent,
  depth,
  outcome: 'completed',
  costUsd: 0.01,
  children: [],
  ...extra,
});

const tree: DelegationNode = {
  ...leaf('root', 0),
  children: [
    { ...leaf('a', 1), children: [leaf('x', 2, { outcome: 'rejected', reason: 'RECURSION_LIMIT', costUsd: 0 })] },
    leaf('b', 1, { outcome: 'rejected', reason: 'BUDGET_EXCEEDED', costUsd: 0 }),
  ],
};

describe('delegation tree', () => {
  it('counts dispatched tasks and rejections by reason', () => {
    expect(countNodes(tree)).toEqual({ dispatched: 2, rejectedByReason: { RECURSION_LIMIT: 1, BUDGET_EXCEEDED: 1 } });
  });

  it('draws the tree as text with the rejection reasons', () => {
    expect(renderTreeText(tree)).toBe(
      ['root d0 $0.010', '├─ a d1 $0.010', '│  └─ x ✗ RECURSION_LIMIT', '└─ b ✗ BUDGET_EXCEEDED'].join('\n'),
    );
  });

  it('summarises what does not fit in the terminal', () => {
    expect(renderTreeText(tree, 2).split('\n').at(-1)).toBe('… 2 more nodes (see the SVG)');
  });

  it('draws one circle per node and escapes the title', () => {
    const svg = renderTreeSvg(tree, 'trace <1>');
    expect(svg.match(/<circle class="node"/g)).toHaveLength(4);
    expect(svg).toContain('trace &lt;1&gt;');
  });
});
