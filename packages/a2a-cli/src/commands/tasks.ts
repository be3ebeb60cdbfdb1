import { randomUUID } from 'node:crypto';
import { type A2AClient, type AuthProvider, createA2AClient } from '@a2aplane/a2a-client';
import { createHttpRequestSigner } from '@a2aplane/a2a-identity';
import { type StreamResponse, type TaskState, TaskStateSchema } from '@a2aplane/a2a-types';
import { agentUrl, flag, integerOption, type ParsedArgs, parseCommandArgs, positionals, stringValue } from '../args.js';
import { EXIT_CODES, usageError } from '../errors.js';
import { readPrivateKey } from '../files.js';
import { createStreamPrinter, printJson, printMessage, printTask, stateName } from '../format.js';
import { type CliClient, grpcClientFor } from '../grpc-client.js';
import type { CliIo, CommandContext } from '../io.js';
import type { Command } from './types.js';
import { cardTrustOf } from './verify.js';

export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  header: { type: 'string', multiple: true },
  key: { type: 'string' },
  'sign-with': { type: 'string' },
  'request-signature': { type: 'string' },
  'allow-insecure': { type: 'boolean' },
  'jku-prefix': { type: 'string', multiple: true },
  'require-signed': { type: 'boolean' },
  transport: { type: 'string' },
  plaintext: { type: 'boolean' },
} as const;

const COMMON_HELP = `  --json               machine-readable output (one JSON document, or one JSON event per line when streaming)
  --timeout <ms>       per-call timeout (default 30000)
  --header <k: v>      extra HTTP header, such as "Authorization: Bearer ..." (repeatable; gRPC metadata)
  --transport <t>      http (default: JSON-RPC or REST from the card) or grpc; with grpc, <url> may
                       also be a gRPC target host:port
  --plaintext          with --transport grpc: no TLS (default: TLS)
  --key <file>         the agent card must be signed by this public JWK / JWKS
  --sign-with <file>   sign every request as the agent of this private Ed25519 JWK (a2a keygen):
                       RFC 9421 HTTP Message Signatures (gRPC calls too), for agents that
                       require verified callers
  --request-signature <auto|ed25519>
                       with --sign-with: auto (default) signs with hmac-sha256 when the agent's
                       verified card advertises it (its own key), else Ed25519; ed25519 always
                       signs Ed25519 (a signature third parties can check)
  --allow-insecure     accept a loopback http jku (development only)
  --jku-prefix <url>   also trust JWKS URLs starting with this prefix (repeatable)
  --require-signed     refuse an agent whose card is not signed

A signed agent card is verified before anything is sent (with --key, or the JWKS at its jku on
the card's own HTTPS origin); a bad signature or an AgentID that is not the signer's ends the
command with exit code 2. An unsigned card is used as it is, unless --require-signed.`;

function headersOf(command: string, args: ParsedArgs): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of (args.values.header as string[] | undefined) ?? []) {
    const index = raw.indexOf(':');
    if (index <= 0) throw usageError(`${command}: --header expects "Name: value", got ${JSON.stringify(raw)}`);
    out[raw.slice(0, index).trim()] = raw.slice(index + 1).trim();
  }
  return out;
}

/**
 * `--sign-with`: the request signer of that key. The card is verified before the first signed
 * request goes out; the client signs with the fast path when the verified card advertises it
 * (decision 0037), Ed25519 otherwise or with `--request-signature ed25519`.
 */
async function signerOf(command: string, args: ParsedArgs): Promise<{ auth?: AuthProvider }> {
  const file = stringValue(args, 'sign-with');
  const requestSignature = stringValue(args, 'request-signature') ?? 'auto';
  if (requestSignature !== 'auto' && requestSignature !== 'ed25519')
    throw usageError(`${command}: --request-signature expects auto or ed25519, got ${JSON.stringify(requestSignature)}`);
  if (file === undefined) {
    if (stringValue(args, 'request-signature') !== undefined) throw usageError(`${command}: --request-signature needs --sign-with`);
    return {};
  }
  const key = await readPrivateKey(file);
  if (key.algorithm !== 'EdDSA') throw usageError(`${command}: --sign-with needs an Ed25519 private JWK (OKP), got ${key.algorithm}`);
  return { auth: createHttpRequestSigner({ key, requestSignature }) };
}

/** The client of a command: over HTTP (the card's JSON-RPC or REST), or over gRPC with `--transport grpc`. */
export async function clientFor(command: string, io: CliIo, rawUrl: string, args: ParsedArgs): Promise<CliClient> {
  const timeoutMs = integerOption(command, args, 'timeout', { min: 1, max: 86_400_000 }) ?? 30_000;
  const headers = headersOf(command, args);
  const trust = await cardTrustOf(args);
  const signing = await signerOf(command, args);
  const transport = stringValue(args, 'transport') ?? 'http';
  if (transport === 'grpc')
    return grpcClientFor(command, io, rawUrl, { timeoutMs, headers, plaintext: flag(args, 'plaintext'), trust, ...signing });
  if (transport !== 'http') throw usageError(`${command}: --transport expects http or grpc, got ${JSON.stringify(transport)}`);
  if (flag(args, 'plaintext')) throw usageError(`${command}: --plaintext applies to --transport grpc only`);
  const client = createA2AClient({
    baseUrl: agentUrl(command, rawUrl),
    fetch: io.fetch,
    timeoutMs,
    headers,
    retry: { retries: 1 },
    ...trust,
    ...signing,
  });
  return { client, close: () => undefined };
}

/** Runs a command's calls and closes the client (the gRPC channels) afterwards. */
async function withClient(
  command: string,
  io: CliIo,
  rawUrl: string,
  args: ParsedArgs,
  use: (client: A2AClient) => Promise<number>,
): Promise<number> {
  const { client, close } = await clientFor(command, io, rawUrl, args);
  try {
    return await use(client);
  } finally {
    close();
  }
}

const callOptions = (io: CliIo) => (io.signal ? { signal: io.signal } : {});

/** Exit codes every command that talks to an agent shares. */
const CALL_EXIT_CODES = `  0   done
  1   error (unreachable agent, HTTP or agent error, timeout)
  2   the agent card failed verification (bad signature, untrusted key, AgentID mismatch)
  64  usage error
  130 interrupted (Ctrl-C)`;

const UNSUCCESSFUL: ReadonlySet<TaskState> = new Set(['TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_CANCELED']);

/** Prints a stream; resolves the last task state it saw (undefined when it carried none). */
async function printStream(ctx: CommandContext, events: AsyncIterable<StreamResponse>, json: boolean): Promise<TaskState | undefined> {
  const printer = createStreamPrinter(ctx);
  let state: TaskState | undefined;
  try {
    for await (const event of events) {
      state = event.task?.status.state ?? event.statusUpdate?.status.state ?? state;
      if (json) ctx.out(JSON.stringify(event));
      else printer.print(event);
    }
  } finally {
    printer.end();
  }
  return state;
}

const sendExitCode = (state: TaskState | undefined): number =>
  state !== undefined && UNSUCCESSFUL.has(state) ? EXIT_CODES.taskUnsuccessful : EXIT_CODES.ok;

export const sendCommand: Command = {
  name: 'send',
  summary: 'send a text message to an agent (optionally streaming)',
  help: `Usage: a2a send <url> <text> [--stream] [--context <contextId>] [--task <taskId>] [--transport grpc] [--json]

Sends one user message with a text part (SendMessage, or SendStreamingMessage with --stream)
and prints the resulting task or message.

Options:
  --stream             stream the task's events as they happen
  --context <id>       continue a conversation (contextId)
  --task <id>          continue a task (taskId), e.g. one waiting for input
  --skill <id>         ask for this skill (message.metadata.skillId)
  --no-wait            return as soon as the task exists (configuration.returnImmediately)
${COMMON_HELP}

Exit codes:
  0   the agent answered with a message, or the task completed, needs input or auth, or is
      still running (--no-wait)
  1   error (unreachable agent, HTTP or agent error, timeout)
  2   the agent card failed verification (bad signature, untrusted key, AgentID mismatch)
  4   the task ended FAILED, REJECTED or CANCELED
  64  usage error
  130 interrupted (Ctrl-C)`,
  async run(ctx, argv) {
    const args = parseCommandArgs('send', argv, {
      ...COMMON_OPTIONS,
      stream: { type: 'boolean' },
      context: { type: 'string' },
      task: { type: 'string' },
      skill: { type: 'string' },
      'no-wait': { type: 'boolean' },
    });
    const [rawUrl, text] = positionals('send', args, ['url', 'text']);
    const contextId = stringValue(args, 'context');
    const taskId = stringValue(args, 'task');
    const skill = stringValue(args, 'skill');
    const params = {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER' as const,
        parts: [{ text: text as string }],
        ...(contextId === undefined ? {} : { contextId }),
        ...(taskId === undefined ? {} : { taskId }),
        ...(skill === undefined ? {} : { metadata: { skillId: skill } }),
      },
      ...(flag(args, 'no-wait') ? { configuration: { returnImmediately: true } } : {}),
    };
    const json = flag(args, 'json');
    return withClient('send', ctx.io, rawUrl as string, args, async (client) => {
      if (flag(args, 'stream')) {
        return sendExitCode(await printStream(ctx, client.sendStreamingMessage(params, callOptions(ctx.io)), json));
      }
      const result = await client.sendMessage(params, callOptions(ctx.io));
      if (json) printJson(ctx, result);
      else if (result.task) printTask(ctx, result.task);
      else if (result.message) printMessage(ctx, result.message);
      return sendExitCode(result.task?.status.state);
    });
  },
};

export const getCommand: Command = {
  name: 'get',
  summary: 'show a task (GetTask)',
  help: `Usage: a2a get <url> <taskId> [--history <n>] [--json]

Options:
  --history <n>        include up to n messages of history
${COMMON_HELP}

Exit codes:
${CALL_EXIT_CODES}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('get', argv, { ...COMMON_OPTIONS, history: { type: 'string' } });
    const [rawUrl, id] = positionals('get', args, ['url', 'taskId']);
    const historyLength = integerOption('get', args, 'history', { min: 0, max: 1_000_000 });
    return withClient('get', ctx.io, rawUrl as string, args, async (client) => {
      const task = await client.getTask(
        { id: id as string, ...(historyLength === undefined ? {} : { historyLength }) },
        callOptions(ctx.io),
      );
      if (flag(args, 'json')) printJson(ctx, task);
      else {
        printTask(ctx, task);
        for (const message of task.history ?? []) printMessage(ctx, message);
      }
      return 0;
    });
  },
};

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a task (CancelTask)',
  help: `Usage: a2a cancel <url> <taskId> [--json]

Options:
${COMMON_HELP}

Exit codes:
${CALL_EXIT_CODES}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('cancel', argv, COMMON_OPTIONS);
    const [rawUrl, id] = positionals('cancel', args, ['url', 'taskId']);
    return withClient('cancel', ctx.io, rawUrl as string, args, async (client) => {
      const task = await client.cancelTask({ id: id as string }, callOptions(ctx.io));
      if (flag(args, 'json')) printJson(ctx, task);
      else printTask(ctx, task);
      return 0;
    });
  },
};

const STATES = TaskStateSchema.options.filter((s) => s !== 'TASK_STATE_UNSPECIFIED');

export const listCommand: Command = {
  name: 'list',
  summary: 'list tasks (ListTasks)',
  help: `Usage: a2a list <url> [--context <contextId>] [--status <state>] [--page-size <n>] [--page-token <t>] [--json]

Options:
  --context <id>       only tasks of this contextId
  --status <state>     only tasks in this state: ${STATES.map(stateName).join(', ')}
  --page-size <n>      1 to 100
  --page-token <t>     the next page token printed by a previous call
${COMMON_HELP}

Exit codes:
${CALL_EXIT_CODES}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('list', argv, {
      ...COMMON_OPTIONS,
      context: { type: 'string' },
      status: { type: 'string' },
      'page-size': { type: 'string' },
      'page-token': { type: 'string' },
    });
    const [rawUrl] = positionals('list', args, ['url']);
    const rawStatus = stringValue(args, 'status');
    let status: (typeof STATES)[number] | undefined;
    if (rawStatus !== undefined) {
      status = STATES.find((s) => s === rawStatus || stateName(s) === rawStatus.toLowerCase());
      if (status === undefined)
        throw usageError(`list: --status expects one of ${STATES.map(stateName).join(', ')}, got ${JSON.stringify(rawStatus)}`);
    }
    const pageSize = integerOption('list', args, 'page-size', { min: 1, max: 100 });
    const contextId = stringValue(args, 'context');
    const pageToken = stringValue(args, 'page-token');
    return withClient('list', ctx.io, rawUrl as string, args, async (client) => {
      const page = await client.listTasks(
        {
          ...(contextId === undefined ? {} : { contextId }),
          ...(status === undefined ? {} : { status }),
          ...(pageSize === undefined ? {} : { pageSize }),
          ...(pageToken === undefined ? {} : { pageToken }),
        },
        callOptions(ctx.io),
      );
      if (flag(args, 'json')) {
        printJson(ctx, page);
        return 0;
      }
      if (page.tasks.length === 0) ctx.out(ctx.style.dim('no tasks'));
      for (const task of page.tasks) {
        const when = task.status.timestamp ? `  ${task.status.timestamp}` : '';
        ctx.out(
          `${task.id}  ${stateName(task.status.state).padEnd(14)}${task.contextId ? `  ${task.contextId}` : ''}${ctx.style.dim(when)}`,
        );
      }
      ctx.out(
        ctx.style.dim(
          `${page.tasks.length} of ${page.totalSize} task(s)${page.nextPageToken ? `; next page: --page-token ${page.nextPageToken}` : ''}`,
        ),
      );
      return 0;
    });
  },
};

export const subscribeCommand: Command = {
  name: 'subscribe',
  summary: "follow a task's events (SubscribeToTask)",
  help: `Usage: a2a subscribe <url> <taskId> [--json]

Streams the task's current state and then its updates until it finishes or is interrupted.

Options:
${COMMON_HELP}

Exit codes:
${CALL_EXIT_CODES}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('subscribe', argv, COMMON_OPTIONS);
    const [rawUrl, id] = positionals('subscribe', args, ['url', 'taskId']);
    return withClient('subscribe', ctx.io, rawUrl as string, args, async (client) => {
      await printStream(ctx, client.subscribeToTask({ id: id as string }, callOptions(ctx.io)), flag(args, 'json'));
      return 0;
    });
  },
};
