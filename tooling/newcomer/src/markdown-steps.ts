/**
 * Reads the runnable steps out of a guide. A fenced block takes part when its info string says so:
 *
 * - ```` ```ts file=call.ts ```` (any language): the block is written to that file of the scratch project;
 * - ```` ```sh run ````: each command line runs in the scratch project, in order, and must exit 0;
 * - ```` ```sh run background ready=TEXT ````: the command starts and keeps running until the guide ends;
 *   the next step waits until its output shows TEXT;
 * - ```` ```text expect ````: every line must appear in the output of the last `run` block, in order
 *   (`…` inside a line stands for anything).
 *
 * Every other block is prose to the harness. Ports the guide names in a comment
 * `<!-- newcomer ports: 4000 4001 -->` are replaced by free ports everywhere, so the guide reads with
 * fixed numbers while the run never collides with anything else on the machine.
 */
export type Step =
  | { kind: 'file'; line: number; path: string; content: string }
  | { kind: 'run'; line: number; commands: string[] }
  | { kind: 'background'; line: number; command: string; ready: string }
  | { kind: 'expect'; line: number; lines: string[] };

export interface Guide {
  steps: Step[];
  ports: number[];
}

const FENCE = /^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;

export function readGuide(markdown: string): Guide {
  const steps: Step[] = [];
  for (const match of markdown.matchAll(FENCE)) {
    const info = (match[1] ?? '').trim().split(/\s+/);
    const body = match[2] ?? '';
    const line = markdown.slice(0, match.index).split('\n').length;
    const step = stepOf(info, body, line);
    if (step) steps.push(step);
  }
  const portsComment = /<!--\s*newcomer ports:([\d\s]+)-->/.exec(markdown);
  const ports = portsComment ? (portsComment[1] ?? '').trim().split(/\s+/).map(Number) : [];
  return { steps, ports };
}

function stepOf(info: string[], body: string, line: number): Step | undefined {
  const words = info.slice(1);
  const file = words.find((word) => word.startsWith('file='));
  if (file) return { kind: 'file', line, path: file.slice('file='.length), content: body };
  if (words.includes('expect')) return { kind: 'expect', line, lines: body.split('\n').filter((l) => l.trim() !== '') };
  if (!words.includes('run')) return undefined;
  const commands = body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (words.includes('background')) {
    const ready = words.find((word) => word.startsWith('ready='));
    if (!ready || commands.length !== 1) throw new Error(`line ${line}: a background block holds one command and says ready=TEXT`);
    return { kind: 'background', line, command: commands[0] as string, ready: ready.slice('ready='.length).replaceAll('_', ' ') };
  }
  return { kind: 'run', line, commands };
}

/** Whether `output` shows each expected line, in order; `…` in a line matches anything. */
export function missingExpectations(output: string, expected: readonly string[]): string[] {
  const outputLines = output.split('\n');
  const missing: string[] = [];
  let from = 0;
  for (const wanted of expected) {
    const pattern = new RegExp(
      wanted
        .trim()
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*'),
    );
    const index = outputLines.findIndex((candidate, i) => i >= from && pattern.test(candidate));
    if (index === -1) missing.push(wanted);
    else from = index + 1;
  }
  return missing;
}

/** Replaces every listed port number (as a whole number) by its free counterpart. */
export function withPorts(text: string, ports: ReadonlyMap<number, number>): string {
  let result = text;
  for (const [from, to] of ports) result = result.replace(new RegExp(`(?<![\\d.])${from}(?!\\d)`, 'g'), String(to));
  return result;
}
