/** One node of the delegation tree of scenario 3: a task that ran, or a dispatch that was rejected. */
export interface DelegationNode {
  agent: string;
  depth: number;
  outcome: 'completed' | 'failed' | 'rejected';
  /** The control-plane reason of a rejection (`BUDGET_EXCEEDED`, `RECURSION_LIMIT`, ...). */
  reason?: string;
  costUsd: number;
  children: DelegationNode[];
}

export function countNodes(root: DelegationNode): { dispatched: number; rejectedByReason: Record<string, number> } {
  let dispatched = 0;
  const rejectedByReason: Record<string, number> = {};
  const visit = (node: DelegationNode): void => {
    if (node.outcome === 'rejected') {
      const reason = node.reason ?? 'UNKNOWN';
      rejectedByReason[reason] = (rejectedByReason[reason] ?? 0) + 1;
    } else {
      dispatched += 1;
    }
    node.children.forEach(visit);
  };
  visit(root);
  return { dispatched, rejectedByReason };
}

const label = (node: DelegationNode): string =>
  node.outcome === 'rejected'
    ? `${node.agent} ✗ ${node.reason ?? 'rejected'}`
    : `${node.agent} d${node.depth} $${node.costUsd.toFixed(3)}${node.outcome === 'failed' ? ' (failed)' : ''}`;

/**
 * Draws the tree as text. Subtrees past `maxLines` lines are summarised, so a 1023-node tree
 * stays readable in a terminal; the SVG has every node.
 */
export function renderTreeText(root: DelegationNode, maxLines = 60): string {
  const lines: string[] = [label(root)];
  let omitted = 0;
  const walk = (node: DelegationNode, prefix: string): void => {
    node.children.forEach((child, index) => {
      const last = index === node.children.length - 1;
      if (lines.length >= maxLines) {
        omitted += 1 + countDescendants(child);
        return;
      }
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${label(child)}`);
      walk(child, `${prefix}${last ? '   ' : '│  '}`);
    });
  };
  walk(root, '');
  if (omitted > 0) lines.push(`… ${omitted} more nodes (see the SVG)`);
  return lines.join('\n');
}

function countDescendants(node: DelegationNode): number {
  return node.children.reduce((sum, child) => sum + 1 + countDescendants(child), 0);
}

const COLORS: Record<string, string> = {
  completed: '#2e7d32',
  failed: '#ef6c00',
  BUDGET_EXCEEDED: '#c62828',
  RECURSION_LIMIT: '#6a1b9a',
  POLICY_VIOLATION: '#1565c0',
};

export const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** Draws the tree as a standalone SVG: one column per leaf, one row per depth, colour by outcome. */
export function renderTreeSvg(root: DelegationNode, title: string): string {
  const positions = new Map<DelegationNode, { x: number; y: number }>();
  let nextLeaf = 0;
  const columnWidth = 14;
  const rowHeight = 56;
  const layout = (node: DelegationNode): number => {
    const x =
      node.children.length === 0 ? nextLeaf++ * columnWidth : node.children.map(layout).reduce((a, b) => a + b, 0) / node.children.length;
    positions.set(node, { x, y: node.depth * rowHeight });
    return x;
  };
  layout(root);
  const margin = 40;
  const width = Math.max(nextLeaf * columnWidth, 600) + margin * 2;
  const maxDepth = Math.max(...[...positions.values()].map((p) => p.y)) / rowHeight;
  const height = (maxDepth + 1) * rowHeight + margin * 2 + 60;
  const edges: string[] = [];
  const nodes: string[] = [];
  for (const [node, { x, y }] of positions) {
    for (const child of node.children) {
      const to = positions.get(child)!;
      edges.push(
        `<line x1="${x + margin}" y1="${y + margin + 60}" x2="${to.x + margin}" y2="${to.y + margin + 60}" stroke="#999" stroke-width="0.6"/>`,
      );
    }
    const color = COLORS[node.outcome === 'rejected' ? (node.reason ?? '') : node.outcome] ?? '#555';
    nodes.push(
      `<circle class="node" cx="${x + margin}" cy="${y + margin + 60}" r="5" fill="${color}"><title>${escapeXml(label(node))}</title></circle>`,
    );
  }
  const legend = Object.entries(COLORS)
    .map(
      ([name, color], i) =>
        `<circle cx="${margin + i * 170}" cy="${margin + 20}" r="5" fill="${color}"/><text x="${margin + 10 + i * 170}" y="${margin + 24}" font-size="12">${name}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${margin}" y="${margin - 10}" font-size="16">${escapeXml(title)}</text>`,
    legend,
    ...edges,
    ...nodes,
    '</svg>',
  ].join('\n');
}
