import { extname } from 'node:path';
import { type ConfigFormat, materializeConfig, type OperatorConfig } from '@a2aplane/a2a-governance';
import { parseOperatorConfig } from '@a2aplane/a2a-governance/config-files';
import { createDefaultSelectorRegistry } from '@a2aplane/a2a-routing';
import { checkMetricsPath, startServeAgent } from '../agent.js';
import { cardTrustOf } from './verify.js';
import { agentUrl, flag, integerOption, parseCommandArgs, positionals, stringValue } from '../args.js';
import { CliError, usageError } from '../errors.js';
import { readCallerKeys, readJsonFile, readPrivateKey, readTextFile } from '../files.js';
import type { Command } from './types.js';

const CONFIG_FORMATS: Record<string, ConfigFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml', '.toml': 'toml' };

/** Reads an operator config file (format from the extension); every problem is one CliError line. */
async function readOperatorConfig(path: string): Promise<OperatorConfig> {
  const format = CONFIG_FORMATS[extname(path).toLowerCase()];
  if (format === undefined) throw usageError(`serve: cannot tell the format of ${path}; expected a .toml, .yaml, .yml or .json file`);
  const result = parseOperatorConfig(await readTextFile(path), format);
  if (!result.ok) {
    const problems = result.violations.map((v) => (v.field ? `${v.field}: ${v.description}` : v.description)).join('; ');
    throw new CliError(`invalid operator config ${path}: ${problems}`);
  }
  return result.config;
}

const AGENT_ID = /^[0-9a-fA-F]{64}$/;
/** Short keys are guessable; operators should issue random ones. */
const MIN_API_KEY_LENGTH = 16;

/** Reads `{ "<api key>": "<AgentID>", ... }`: keys the operator issued to agents. */
async function readApiKeys(path: string): Promise<Record<string, string>> {
  const { value } = await readJsonFile(path);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(
      `invalid API key file ${path}: expected an object of "<api key>": "<AgentID>", got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    );
  }
  const keys: Record<string, string> = {};
  for (const [key, agentId] of Object.entries(value)) {
    if (key.length < MIN_API_KEY_LENGTH)
      throw new CliError(
        `invalid API key file ${path}: expected keys of at least ${MIN_API_KEY_LENGTH} characters, got one of ${key.length}`,
      );
    if (typeof agentId !== 'string' || !AGENT_ID.test(agentId)) {
      throw new CliError(
        `invalid API key file ${path}: expected an AgentID (64 hex characters) for each key, got ${JSON.stringify(agentId)}`,
      );
    }
    keys[key] = agentId.toLowerCase();
  }
  return keys;
}

/** `--metrics 9464` (a port of its own) or `--metrics /metrics` (a path of the agent's server). */
function metricsOption(raw: string | undefined): { port: number } | { path: string } | undefined {
  if (raw === undefined) return undefined;
  if (/^\d{1,5}$/.test(raw) && Number(raw) <= 65_535) return { port: Number(raw) };
  try {
    checkMetricsPath(raw);
  } catch (error) {
    throw usageError(`serve: --metrics expects a port (0-65535) or a path: ${(error as Error).message}`);
  }
  return { path: raw };
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run an echo (or delegating) agent under an operator config',
  help: `Usage: a2a serve --config <a2aplane.toml|.yaml|.json> [--port 0] [--host 127.0.0.1] [--grpc <port>] [--key <private jwk>] [--api-keys <file>] [--caller-keys <file>] [--delegate-to <url>] [--metrics <port|path>] [--name <name>] [--json]

Starts an A2A agent over HTTP (JSON-RPC at /a2a/jsonrpc, REST under /a2a/rest) with a signed
card at /.well-known/agent-card.json whose jku points to /.well-known/jwks.json. Every task
passes the governance of the operator config first: trust (who may call which skill), then the
budget, recursion and policy blocks. Without a trust block every caller is served and each new
AgentID is logged (info, on stderr); with trust.allowlist only those agents are served, and a
caller that cannot prove an AgentID is refused (UNAUTHENTICATED). A caller proves its AgentID by
signing its requests with its Ed25519 key (RFC 9421 HTTP Message Signatures, keyid = AgentID;
--caller-keys lists the keys this agent knows) or by an API key issued to it (--api-keys).
By default the agent echoes the message; with --delegate-to it forwards each message to that
agent, carrying the task lineage, and returns the answer. With --grpc the same agent is also
served over gRPC (lf.a2a.v1.A2AService, plaintext like the HTTP endpoint) and the card lists the
GRPC interface. With --metrics it serves OpenTelemetry metrics (requests, latency, tasks, streams,
governance refusals, budget) in the Prometheus text format. Prints the URL, then runs until
SIGINT or SIGTERM and stops cleanly.

Options:
  --config <file>        operator config (required)
  --port <n>             port, 0 picks a free one (default 0)
  --host <addr>          interface to bind (default 127.0.0.1)
  --grpc <port>          also serve the gRPC binding on this port (0 picks a free one)
  --key <file>           private JWK to sign the card with (default: a fresh Ed25519 key)
  --api-keys <file>      JSON { "<api key>": "<AgentID>" }: keys issued to agents; a request
                         with one in the X-API-Key header is that agent for the trust rules
  --caller-keys <file>   JWKS { "keys": [...] } or JSON list of the Ed25519 public JWKs of the
                         agents that may sign their requests (RFC 9421, keyid = AgentID, to
                         this agent's URL): a verified signature is that agent for the trust
                         rules, a failed one is refused (UNAUTHENTICATED); an unsigned request
                         is checked against --api-keys, else anonymous
  --oidc-issuer <url>    require a JWT bearer token from this OpenID provider (the card declares
                         an openIdConnect scheme at <url>/.well-known/openid-configuration;
                         https, or loopback http with --allow-insecure); not with --api-keys or
                         --caller-keys
  --audience <aud>       with --oidc-issuer: the audience tokens must be minted for (required)
  --delegate-to <url>    forward messages to this agent; its card is verified as a2a send does:
  --delegate-key <file>  the delegate's card must be signed by this public JWK / JWKS
  --allow-insecure       accept the delegate's loopback http jku (development only)
  --jku-prefix <url>     also trust JWKS URLs starting with this prefix (repeatable)
  --require-signed       refuse a delegate whose card is not signed
  --metrics <port|path>  Prometheus scrape endpoint: a path (/metrics) on the agent's own server,
                         or a port (0 picks one) of its own on --host, path /metrics
  --name <name>          the card's name
  --json                 print {"url","agentId","kid"} (and "grpc": the gRPC target, "metrics": the
                         scrape URL) as one JSON line

Exit codes:
  0   stopped by SIGINT/SIGTERM
  1   error (unreadable or invalid config, port in use)
  64  usage error`,
  async run(ctx, argv) {
    const args = parseCommandArgs('serve', argv, {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      grpc: { type: 'string' },
      metrics: { type: 'string' },
      key: { type: 'string' },
      'api-keys': { type: 'string' },
      'caller-keys': { type: 'string' },
      'oidc-issuer': { type: 'string' },
      audience: { type: 'string' },
      'delegate-to': { type: 'string' },
      'delegate-key': { type: 'string' },
      'allow-insecure': { type: 'boolean' },
      'jku-prefix': { type: 'string', multiple: true },
      'require-signed': { type: 'boolean' },
      name: { type: 'string' },
      json: { type: 'boolean' },
    });
    positionals('serve', args, []);
    const configFile = stringValue(args, 'config');
    if (configFile === undefined) throw usageError('serve: --config <file> is required; see a2a serve --help');
    const port = integerOption('serve', args, 'port', { min: 0, max: 65_535 }) ?? 0;
    const host = stringValue(args, 'host') ?? '127.0.0.1';
    const grpcPort = integerOption('serve', args, 'grpc', { min: 0, max: 65_535 });
    const metrics = metricsOption(stringValue(args, 'metrics'));
    const rawDelegate = stringValue(args, 'delegate-to');
    const delegateTo = rawDelegate === undefined ? undefined : agentUrl('serve', rawDelegate);
    const keyFile = stringValue(args, 'key');
    const apiKeysFile = stringValue(args, 'api-keys');
    const callerKeysFile = stringValue(args, 'caller-keys');
    const name = stringValue(args, 'name');
    const oidcIssuer = stringValue(args, 'oidc-issuer');
    const audience = stringValue(args, 'audience');
    if ((oidcIssuer === undefined) !== (audience === undefined)) throw usageError('serve: --oidc-issuer and --audience go together');
    if (oidcIssuer !== undefined && (apiKeysFile !== undefined || callerKeysFile !== undefined))
      throw usageError('serve: --oidc-issuer cannot be combined with --api-keys or --caller-keys');
    const oidc =
      oidcIssuer === undefined
        ? undefined
        : { issuer: oidcIssuer, audience: audience as string, allowInsecureLoopback: flag(args, 'allow-insecure') };

    const operatorConfig = await readOperatorConfig(configFile);
    const config = materializeConfig(operatorConfig, { knownSelectors: createDefaultSelectorRegistry().names() });
    const key = keyFile === undefined ? undefined : await readPrivateKey(keyFile);
    const delegateTrust = await cardTrustOf(args, 'delegate-key');
    const apiKeys = apiKeysFile === undefined ? undefined : await readApiKeys(apiKeysFile);
    const callerKeys = callerKeysFile === undefined ? undefined : await readCallerKeys(callerKeysFile);
    if (ctx.io.signal?.aborted) return 0;
    const log = (line: string): void => ctx.err(ctx.style.dim(line));
    if (config.trust?.allowlist === undefined) log('info: trust allow-all: no trust.allowlist in the config, every caller is served');
    else if (apiKeys === undefined && callerKeys === undefined)
      log(`info: trust allowlist of ${config.trust.allowlist.length}: callers without a verified AgentID are refused (UNAUTHENTICATED)`);
    if (callerKeys !== undefined)
      log(
        `info: signed callers (RFC 9421): ${callerKeys.length} caller key(s); unsigned requests ${apiKeys ? 'need an API key' : 'are anonymous'}`,
      );

    let agent: Awaited<ReturnType<typeof startServeAgent>>;
    try {
      agent = await startServeAgent({
        host,
        port,
        config,
        fetch: ctx.io.fetch,
        log,
        ...(apiKeys ? { apiKeys } : {}),
        ...(callerKeys ? { callerKeys } : {}),
        ...(oidc ? { oidc } : {}),
        ...(key ? { key } : {}),
        ...(delegateTo ? { delegateTo, delegateTrust } : {}),
        ...(name ? { name } : {}),
        ...(grpcPort === undefined ? {} : { grpcPort }),
        ...(metrics === undefined ? {} : { metrics }),
      });
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (oidc && error instanceof TypeError) throw usageError(`serve: --oidc-issuer: ${error.message}`);
      if (code === 'EADDRINUSE') throw usageError(`serve: ${host}:${port} is already in use`);
      if (grpcPort !== undefined && /No address added out of total/.test(String((error as Error)?.message)))
        throw usageError(`serve: cannot bind gRPC on ${host}:${grpcPort}`);
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw usageError(`serve: cannot bind ${host}`);
      throw error;
    }
    if (flag(args, 'json'))
      ctx.out(
        JSON.stringify({
          url: agent.url,
          agentId: agent.agentId,
          kid: agent.key.kid,
          ...(agent.grpcTarget ? { grpc: agent.grpcTarget } : {}),
          ...(agent.metricsUrl ? { metrics: agent.metricsUrl } : {}),
        }),
      );
    else {
      ctx.out(agent.url);
      if (agent.grpcTarget) ctx.err(ctx.style.dim(`gRPC on ${agent.grpcTarget}`));
      if (agent.metricsUrl) ctx.err(ctx.style.dim(`metrics on ${agent.metricsUrl}`));
      ctx.err(
        ctx.style.dim(`${delegateTo ? `delegating to ${delegateTo}` : 'echo agent'}; AgentID ${agent.agentId}; config ${configFile}`),
      );
      ctx.err(ctx.style.dim('press Ctrl-C to stop'));
    }
    await new Promise<void>((resolve) => {
      const signal = ctx.io.signal;
      if (!signal) return; // without a signal the agent runs until the process ends
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await agent.close();
    if (!flag(args, 'json')) ctx.err(ctx.style.dim('stopped'));
    return 0;
  },
};
