import { type TraceSpan, waterfall } from '@a2aplane/a2a-otel/read';
import { escapeXml } from './delegation-tree.js';

/**
 * The trace as a waterfall (SVG): one row per span in tree order, indented by nesting, its bar
 * placed on the trace's time axis. Server spans blue, client calls grey, executor runs green,
 * governance stages orange, MCP tool calls purple (with their cost); a refusal or an error is red.
 * Hover a row for its attributes.
 */
export function renderWaterfallSvg(spans: readonly TraceSpan[], title: string): string {
  const { rows, totalMs } = waterfall(spans);
  if (rows.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="30"><text x="4" y="20">no spans</text></svg>`;
  const labelWidth = 360;
  const barsWidth = 900;
  const rowHeight = 14;
  const top = 40;
  const width = labelWidth + barsWidth + 20;
  const height = top + rows.length * rowHeight + 10;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="10">`,
    `<text x="4" y="16" font-size="13" font-family="sans-serif">${escapeXml(title)}</text>`,
    `<text x="${labelWidth}" y="32" fill="#666">0 ms</text>`,
    `<text x="${labelWidth + barsWidth}" y="32" fill="#666" text-anchor="end">${totalMs.toFixed(1)} ms</text>`,
  ];
  rows.forEach(({ span, depth, offset, width: share, label, color, durationMs }, index) => {
    const y = top + index * rowHeight;
    const x = labelWidth + offset * barsWidth;
    const w = Math.max(1, share * barsWidth);
    const details = Object.entries(span.attributes)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
      .join('\n');
    parts.push(
      `<g><title>${escapeXml(`${span.name} (${durationMs.toFixed(2)} ms)\n${details}`)}</title>` +
        `<text x="${4 + Math.min(depth, 24) * 8}" y="${y + 10}">${escapeXml(label.slice(0, 48))}</text>` +
        `<rect x="${x.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowHeight - 4}" fill="${color}"/></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
