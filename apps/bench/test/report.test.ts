import { describe, expect, it } from 'vitest';
import { BEGIN, END, replaceMarkedSection } from '../src/lib/report.js';

describe('replaceMarkedSection', () => {
  const doc = `# Benchmarks\n\nhand-written intro\n\n${BEGIN}\n\nold figures\n\n${END}\n\nhand-written notes\n`;

  it('replaces only the text between the markers', () => {
    const out = replaceMarkedSection(doc, '## Server throughput\n\nnew figures\n');
    expect(out).toBe(
      `# Benchmarks\n\nhand-written intro\n\n${BEGIN}\n\n## Server throughput\n\nnew figures\n\n${END}\n\nhand-written notes\n`,
    );
    expect(replaceMarkedSection(out, 'again')).toContain(`${BEGIN}\n\nagain\n\n${END}`);
  });

  it('refuses a document without the markers, with them out of order or twice', () => {
    expect(() => replaceMarkedSection('# Benchmarks\n', 'x')).toThrow(/bench:begin/);
    expect(() => replaceMarkedSection(`${END}\n${BEGIN}\n`, 'x')).toThrow(/bench:begin/);
    expect(() => replaceMarkedSection(`${BEGIN}\n${END}\n${BEGIN}\n${END}\n`, 'x')).toThrow(/bench:begin/);
  });
});
