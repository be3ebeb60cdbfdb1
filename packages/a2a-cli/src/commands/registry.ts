import {
  type AgentView,
  createFileRegistryStore,
  RegistryFileError,
  type RegistryStore,
  startRegistryService,
} from '@a2aplane/a2a-registry';
import { flag, type ParsedArgs, parseCommandArgs, positionals, stringValue } from '../args.js';
import { CliError, EXIT_CODES, usageError } from '../errors.js';
import { readJsonFile, readTextFile } from '../files.js';
import type { CommandContext } from '../io.js';
import type { Command } from './types.js';

const TOKEN_ENV = 'A2A_REGISTRY_TOKEN';

const HELP = `Usage: a2a registry <subcommand> [options]

Subcommands:
  enroll <card.json> --registry <url> [--jwks <file>] [--card-url <url>] [--tier <t>] [--owner <o>]
                     enroll (or re-enroll, or rotate the key of) the agent whose signed card this is
  search --registry <url> [--skill <id>] [--tag <tag>] [--query <text>] [--health up,degraded]
                     find enrolled agents (ARD POST /search)
  revoke|disable|enable <agentId> --registry <url> [--reason <text>]
                     change an agent's status
  serve [--host 127.0.0.1] [--port 0] [--public-url <url>] [--allow-loopback] [--allow-private]
        [--probe-interval <ms>] [--no-probe] [--data <file>]
                     run a registry until Ctrl-C; prints its URL. In memory, or with --data
                     in a JSON file (created if missing, rewritten atomically on every change)

The operator credential of enroll, revoke, disable and enable is read from ${TOKEN_ENV}
(never from a flag: arguments show in process lists). serve accepts it as the credential of
operator "operator". --json prints the registry's answer as JSON.

Exit codes:
  0   done
  1   error (registry unreachable, refused, unreadable file)
  2   enrollment refused (the reason is printed: tampered, agent-id-mismatch, origin-mismatch...)
  64  usage error`;

function registryUrl(args: ParsedArgs): string {
  const url = stringValue(args, 'registry');
  if (url === undefined || !URL.canParse(url)) throw usageError('registry: --registry <url> (an absolute URL) is required');
  return url.replace(/\/+$/, '');
}

function operatorToken(ctx: CommandContext): string {
  const token = ctx.io.env[TOKEN_ENV];
  if (token === undefined || token === '') throw usageError(`registry: set ${TOKEN_ENV} to an operator credential`);
  return token;
}

async function call(
  ctx: CommandContext,
  url: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await ctx.io.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new CliError(`cannot reach the registry at ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: response.status, json };
}

const errorOf = (json: Record<string, unknown>) => (json.error ?? {}) as { code?: string; reason?: string; message?: string };

function describeAgent(agent: AgentView): string {
  return `${agent.agentId}  ${agent.card.name}  ${agent.status}  health ${agent.health.status}${agent.health.reason ? ` (${agent.health.reason})` : ''}  ${agent.cardUrl}`;
}

async function enroll(ctx: CommandContext, args: ParsedArgs): Promise<number> {
  const [file] = positionals('registry enroll', { ...args, positionals: args.positionals.slice(1) }, ['card.json']);
  const base = registryUrl(args);
  const token = operatorToken(ctx);
  const card = await readTextFile(file as string);
  const jwksFile = stringValue(args, 'jwks');
  const body = {
    card,
    ...(jwksFile ? { jwks: (await readJsonFile(jwksFile)).value } : {}),
    ...(stringValue(args, 'card-url') ? { cardUrl: stringValue(args, 'card-url') } : {}),
    ...(stringValue(args, 'tier') ? { tier: stringValue(args, 'tier') } : {}),
    ...(stringValue(args, 'owner') ? { owner: stringValue(args, 'owner') } : {}),
  };
  const { status, json } = await call(ctx, `${base}/admin/enroll`, body, token);
  if (flag(args, 'json')) ctx.out(JSON.stringify(json));
  if (status === 200 || status === 201) {
    if (!flag(args, 'json')) ctx.out(`${String(json.outcome)}: ${describeAgent(json.agent as AgentView)}`);
    return EXIT_CODES.ok;
  }
  const error = errorOf(json);
  if (error.code === 'ENROLLMENT_REFUSED') {
    if (!flag(args, 'json')) ctx.err(`${ctx.style.red('refused')}: ${error.reason}: ${error.message}`);
    return EXIT_CODES.invalidSignature;
  }
  throw new CliError(`registry answered HTTP ${status}: ${error.message ?? 'no detail'}`);
}

async function search(ctx: CommandContext, args: ParsedArgs): Promise<number> {
  const base = registryUrl(args);
  const health = stringValue(args, 'health');
  const filters = {
    ...(stringValue(args, 'skill') ? { skill: stringValue(args, 'skill') } : {}),
    ...(stringValue(args, 'tag') ? { tag: stringValue(args, 'tag') } : {}),
    ...(health ? { health: health.split(',') } : {}),
  };
  const query = stringValue(args, 'query');
  const { status, json } = await call(ctx, `${base}/search`, { ...(query ? { query } : {}), filters, pageSize: 100 });
  if (status !== 200) throw new CliError(`registry answered HTTP ${status}: ${errorOf(json).message ?? 'no detail'}`);
  if (flag(args, 'json')) {
    ctx.out(JSON.stringify(json));
    return EXIT_CODES.ok;
  }
  const results = (json.results ?? []) as Array<{
    displayName: string;
    'x-a2aplane': { agentId: string; health: { status: string } };
    capabilities: string[];
  }>;
  for (const entry of results)
    ctx.out(
      `${entry['x-a2aplane'].agentId}  ${entry.displayName}  health ${entry['x-a2aplane'].health.status}  skills ${entry.capabilities.join(',')}`,
    );
  if (results.length === 0) ctx.err(ctx.style.dim('no agents found'));
  return EXIT_CODES.ok;
}

async function changeStatus(ctx: CommandContext, args: ParsedArgs, action: string): Promise<number> {
  const [agentId] = positionals(`registry ${action}`, { ...args, positionals: args.positionals.slice(1) }, ['agentId']);
  if (!/^[0-9a-f]{64}$/.test(agentId as string))
    throw usageError(`registry ${action}: expected an AgentID (64 lowercase hex characters), got ${JSON.stringify(agentId)}`);
  const base = registryUrl(args);
  const reason = stringValue(args, 'reason');
  const { status, json } = await call(ctx, `${base}/admin/agents/${agentId}/${action}`, reason ? { reason } : {}, operatorToken(ctx));
  if (status !== 200) throw new CliError(`registry answered HTTP ${status}: ${errorOf(json).message ?? 'no detail'}`);
  if (flag(args, 'json')) ctx.out(JSON.stringify(json));
  else ctx.out(describeAgent(json.agent as AgentView));
  return EXIT_CODES.ok;
}

async function serve(ctx: CommandContext, args: ParsedArgs): Promise<number> {
  const port = Number(stringValue(args, 'port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usageError('registry serve: --port expects an integer from 0 to 65535');
  const interval = stringValue(args, 'probe-interval');
  const intervalMs = interval === undefined ? 60_000 : Number(interval);
  if (!Number.isInteger(intervalMs) || intervalMs < 100) throw usageError('registry serve: --probe-interval expects milliseconds >= 100');
  const token = ctx.io.env[TOKEN_ENV];
  const outbound = { allowLoopback: flag(args, 'allow-loopback'), allowPrivate: flag(args, 'allow-private') };
  const data = stringValue(args, 'data');
  if (data === '') throw usageError('registry serve: --data expects a file');
  let store: RegistryStore | undefined;
  try {
    store = data === undefined ? undefined : await createFileRegistryStore({ path: data });
  } catch (error) {
    if (RegistryFileError.isInstance(error)) throw new CliError(error.message);
    throw error;
  }
  const service = await startRegistryService({
    host: stringValue(args, 'host') ?? '127.0.0.1',
    port,
    ...(stringValue(args, 'public-url') ? { publicUrl: stringValue(args, 'public-url') } : {}),
    ...(token ? { operatorTokens: { operator: token } } : {}),
    registryOptions: { ...outbound, ...(store ? { store } : {}) },
    prober: flag(args, 'no-probe') ? false : { ...outbound, intervalMs },
  });
  if (flag(args, 'json')) ctx.out(JSON.stringify({ url: service.url }));
  else {
    ctx.out(service.url);
    if (!token) ctx.err(ctx.style.yellow(`no ${TOKEN_ENV}: admin calls (enroll, revoke) are refused`));
    ctx.err(ctx.style.dim('press Ctrl-C to stop'));
  }
  await new Promise<void>((resolve) => {
    const signal = ctx.io.signal;
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await service.close();
  return EXIT_CODES.ok;
}

export const registryCommand: Command = {
  name: 'registry',
  summary: 'enroll agents in a registry, search it, revoke them, or run one',
  help: HELP,
  async run(ctx, argv) {
    const args = parseCommandArgs('registry', argv, {
      registry: { type: 'string' },
      jwks: { type: 'string' },
      'card-url': { type: 'string' },
      tier: { type: 'string' },
      owner: { type: 'string' },
      skill: { type: 'string' },
      tag: { type: 'string' },
      query: { type: 'string' },
      health: { type: 'string' },
      reason: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'public-url': { type: 'string' },
      'allow-loopback': { type: 'boolean' },
      'allow-private': { type: 'boolean' },
      'probe-interval': { type: 'string' },
      'no-probe': { type: 'boolean' },
      data: { type: 'string' },
      json: { type: 'boolean' },
    });
    const sub = args.positionals[0];
    if (sub === 'enroll') return enroll(ctx, args);
    if (sub === 'search') return search(ctx, args);
    if (sub === 'revoke' || sub === 'disable' || sub === 'enable') return changeStatus(ctx, args, sub);
    if (sub === 'serve') return serve(ctx, args);
    throw usageError(`registry: expected a subcommand (enroll, search, revoke, disable, enable, serve), got ${JSON.stringify(sub ?? '')}`);
  },
};
