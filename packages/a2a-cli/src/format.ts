import type { AgentCard, Artifact, Message, Part, StreamResponse, Task, TaskState } from '@a2aplane/a2a-types';
import type { CommandContext, Style } from './io.js';

/** `TASK_STATE_INPUT_REQUIRED` -> `input-required`. */
export const stateName = (state: TaskState): string =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

function colorState(style: Style, state: TaskState): string {
  const name = stateName(state);
  if (state === 'TASK_STATE_COMPLETED') return style.green(name);
  if (state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED' || state === 'TASK_STATE_CANCELED') return style.red(name);
  if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') return style.yellow(name);
  return style.cyan(name);
}

function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  if (part.url !== undefined) return `<${part.url}>`;
  if (part.raw !== undefined)
    return `[${part.mediaType ?? 'bytes'}${part.filename ? ` ${part.filename}` : ''}, ${part.raw.length} base64 chars]`;
  return '';
}

export const partsText = (parts: readonly Part[]): string => parts.map(partText).join('');

export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.out(JSON.stringify(value, null, 2));
}

function printArtifact(ctx: CommandContext, artifact: Artifact): void {
  ctx.out(`${ctx.style.bold(artifact.name ?? artifact.artifactId)}: ${partsText(artifact.parts)}`);
}

export function printMessage(ctx: CommandContext, message: Message): void {
  const who = message.role === 'ROLE_AGENT' ? 'agent' : 'user';
  ctx.out(`${ctx.style.dim(`${who}:`)} ${partsText(message.parts)}`);
}

export function printTask(ctx: CommandContext, task: Task): void {
  const { style } = ctx;
  ctx.out(
    `${style.bold('task')} ${task.id}  ${colorState(style, task.status.state)}${task.contextId ? style.dim(`  context ${task.contextId}`) : ''}`,
  );
  if (task.status.message) ctx.out(`  ${style.dim('status:')} ${partsText(task.status.message.parts)}`);
  for (const artifact of task.artifacts ?? []) printArtifact(ctx, artifact);
}

/** Prints stream events as they arrive; appended artifact chunks share one line. */
export function createStreamPrinter(ctx: CommandContext): { print(event: StreamResponse): void; end(): void } {
  const { style, io } = ctx;
  let openLine = false;
  const closeLine = (): void => {
    if (openLine) io.stdout.write('\n');
    openLine = false;
  };
  return {
    print(event) {
      if (event.task) {
        closeLine();
        printTask(ctx, event.task);
      } else if (event.message) {
        closeLine();
        printMessage(ctx, event.message);
      } else if (event.statusUpdate) {
        closeLine();
        const { status, taskId } = event.statusUpdate;
        const note = status.message ? ` ${partsText(status.message.parts)}` : '';
        ctx.out(`${style.dim(`[${taskId}]`)} ${colorState(style, status.state)}${note}`);
      } else if (event.artifactUpdate) {
        const { artifact, append, lastChunk } = event.artifactUpdate;
        if (!append || !openLine) {
          closeLine();
          io.stdout.write(`${style.bold(artifact.name ?? artifact.artifactId)}: `);
        }
        io.stdout.write(partsText(artifact.parts));
        openLine = true;
        if (lastChunk) closeLine();
      }
    },
    end: closeLine,
  };
}

export function printCard(ctx: CommandContext, card: AgentCard): void {
  const { style } = ctx;
  ctx.out(`${style.bold(card.name)}  ${style.dim(`v${card.version}`)}`);
  if (card.description) ctx.out(card.description);
  if (card.provider)
    ctx.out(`${style.dim('provider:')} ${card.provider.organization}${card.provider.url ? ` <${card.provider.url}>` : ''}`);
  ctx.out(style.dim('interfaces:'));
  for (const i of card.supportedInterfaces)
    ctx.out(`  ${i.protocolBinding.padEnd(9)} ${i.url}  ${style.dim(`(protocol ${i.protocolVersion})`)}`);
  const caps = card.capabilities;
  const flags = [
    caps.streaming ? 'streaming' : undefined,
    caps.pushNotifications ? 'push' : undefined,
    caps.extendedAgentCard ? 'extended-card' : undefined,
  ].filter(Boolean);
  ctx.out(`${style.dim('capabilities:')} ${flags.length > 0 ? flags.join(', ') : 'none'}`);
  for (const ext of caps.extensions ?? []) ctx.out(`  ${style.dim('extension')} ${ext.uri}${ext.required ? ' (required)' : ''}`);
  if (card.skills.length > 0) {
    ctx.out(style.dim('skills:'));
    for (const skill of card.skills)
      ctx.out(`  ${style.bold(skill.id)}  ${skill.name}${skill.description ? ` - ${skill.description}` : ''}`);
  }
}
