import { writeFile } from 'node:fs/promises';
import { createA2AClient } from '@a2aplane/a2a-client';
import {
  agentIdFromPublicKey,
  createHttpRequestSigner,
  createJwks,
  exportPrivateJwk,
  exportPublicJwk,
  generateKeyPair,
  importJwk,
  type KeyPair,
  REQUEST_SIGNATURES_EXTENSION_URI,
  toVerificationKey,
} from '@a2aplane/a2a-identity';
import { A2AError, type Task } from '@a2aplane/a2a-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, runCli } from '../src/index.js';
import { freePort, parsePrometheusText } from '@a2aplane/test-utils';
import { captureIo, run, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir?.remove();
});

interface Running {
  url: string;
  agentId: string;
  grpc: string | undefined;
  metrics: string | undefined;
  stop(): Promise<number>;
}
const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

/** Starts `a2a serve --json` in-process and waits (bounded) for its URL line. */
async function serve(args: string[], fetchImpl?: typeof fetch): Promise<Running> {
  const controller = new AbortController();
  const captured = captureIo({ signal: controller.signal, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const exit = runCli(['serve', '--json', ...args], captured.io);
  let settled: number | undefined;
  void exit.then((code) => {
    settled = code;
  });
  for (let i = 0; i < 500 && !captured.out().includes('\n') && settled === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  if (settled !== undefined) throw new Error(`serve exited ${settled}: ${captured.err()}`);
  const { url, agentId, grpc, metrics } = JSON.parse(captured.out().split('\n')[0] as string) as {
    url: string;
    agentId: string;
    grpc?: string;
    metrics?: string;
  };
  let stopped: Promise<number> | undefined;
  const handle: Running = {
    url,
    agentId,
    grpc,
    metrics,
    stop: () => {
      if (!stopped) {
        controller.abort();
        stopped = exit;
      }
      return stopped;
    },
  };
  running.push(handle);
  return handle;
}

const TOML = `
[recursion]
max_call_depth = 4

[policy.default]
allowed_skills = ["echo", "delegate"]

[budget.global]
max_tasks_per_minute = 600
`;

describe('a2a serve (operator config, ADR-159 governance)', () => {
  it('starts a signed echo agent from a TOML config, answers, and stops cleanly on abort (exit 0)', async () => {
    const config = dir.file('a2aplane.toml');
    await writeFile(config, TOML);
    const agent = await serve(['--config', config, '--port', '0']);
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const card = await run(['card', agent.url, '--allow-insecure', '--json']);
    expect(card.code).toBe(0);
    expect(JSON.parse(card.out)).toMatchObject({ verification: { status: 'valid', agentId: agent.agentId } });
    const advertised = (JSON.parse(card.out) as { card: { capabilities: { extensions: Array<{ params: Record<string, unknown> }> } } })
      .card;
    expect(advertised.capabilities.extensions[0]?.params.artifact_kind_versions_supported).toEqual(['1']);

    const sent = await run(['send', '--allow-insecure', agent.url, 'hello serve', '--json']);
    expect(sent.code).toBe(0);
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts[0]?.text).toBe('hello serve');

    // The policy block is enforced: a skill outside allowed_skills is refused.
    const refused = await run(['send', '--allow-insecure', agent.url, 'x', '--skill', 'admin']);
    expect(refused.code).toBe(EXIT_CODES.failure);
    expect(refused.err).toContain('POLICY_VIOLATION');

    expect(await agent.stop()).toBe(0);
    const after = await run(['send', '--allow-insecure', agent.url, 'anyone there?']);
    expect(after.code).toBe(EXIT_CODES.failure);
    // A pooled keep-alive socket reports "other side closed", a fresh one "connection refused".
    expect(after.err).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+: /);
  });

  it('--delegate-to forwards the message with its lineage and returns the answer', async () => {
    const config = dir.file('delegate.json');
    await writeFile(config, JSON.stringify({ recursion: { max_call_depth: 4 } }));
    const echo = await serve(['--config', config]);
    const front = await serve(['--config', config, '--delegate-to', echo.url, '--allow-insecure', '--name', 'Front']);
    const sent = await run(['send', '--allow-insecure', front.url, 'through two agents', '--json']);
    expect(sent.code).toBe(0);
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]).toMatchObject({ name: 'delegated', parts: [{ text: 'through two agents' }] });
    const listed = await run(['list', '--allow-insecure', echo.url, '--json']);
    expect((JSON.parse(listed.out) as { tasks: Task[] }).tasks).toHaveLength(1);
  });

  it('--metrics serves a Prometheus scrape endpoint (a path of the agent, or a port of its own)', async () => {
    const config = dir.file('metrics.yaml');
    await writeFile(config, 'budget:\n  global:\n    max_tasks_per_minute: 1\n    overflow: shed\n');
    const agent = await serve(['--config', config, '--metrics', '/metrics']);
    expect(agent.metrics).toBe(`${agent.url}/metrics`);
    expect((await run(['send', '--allow-insecure', agent.url, 'first'])).code).toBe(0);
    expect((await run(['send', '--allow-insecure', agent.url, 'second'])).code).toBe(EXIT_CODES.failure);
    const families = parsePrometheusText(await (await fetch(agent.metrics as string)).text());
    const value = (name: string, labels: Record<string, string>): number =>
      Number(
        families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value,
      );
    expect(value('a2a_server_requests_total', { rpc_method: 'SendMessage', a2a_outcome: 'ok' })).toBe(1);
    expect(value('a2a_server_requests_total', { rpc_method: 'SendMessage', a2a_outcome: 'BUDGET_EXCEEDED' })).toBe(1);
    expect(value('a2a_governance_refusals_total', { a2a_governance_stage: 'budget', a2a_governance_reason: 'tasks' })).toBe(1);
    expect(value('a2a_server_tasks_finished_total', { a2a_task_state: 'TASK_STATE_COMPLETED' })).toBe(1);

    const own = await serve(['--config', config, '--metrics', '0']);
    expect(own.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(own.metrics?.startsWith(own.url)).toBe(false);
    expect((await fetch(own.metrics as string)).status).toBe(200);

    const bad = await run(['serve', '--config', config, '--metrics', '/a2a/metrics']);
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.err).toContain('--metrics expects a port');
  });

  it('the budget block is enforced: past max_tasks_per_minute the agent sheds with BUDGET_EXCEEDED', async () => {
    const config = dir.file('budget.yaml');
    await writeFile(config, 'budget:\n  global:\n    max_tasks_per_minute: 1\n    overflow: shed\n');
    const agent = await serve(['--config', config]);
    expect((await run(['send', '--allow-insecure', agent.url, 'first'])).code).toBe(0);
    const second = await run(['send', '--allow-insecure', agent.url, 'second']);
    expect(second.code).toBe(EXIT_CODES.failure);
    expect(second.err).toMatch(/^error: agent error BUDGET_EXCEEDED: .*limit=tasks/);
  });

  it('limits end tasks: max_tokens 1 fails a 5-token echo; a cost estimate over max_cost_usd 0 is refused', async () => {
    const config = dir.file('limits.yaml');
    await writeFile(config, 'policy:\n  default:\n    max_cost_usd: 0\n    max_tokens: 1\n');
    const agent = await serve(['--config', config]);
    const sent = await run(['send', '--allow-insecure', agent.url, 'one two three four five', '--json']);
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts[1]?.data).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'maxTokens' } });

    const priced = dir.file('priced.yaml');
    await writeFile(priced, 'cost:\n  skills:\n    echo: 0.01\npolicy:\n  default:\n    max_cost_usd: 0\n    max_tokens: 1\n');
    const strict = await serve(['--config', priced]);
    const refused = await run(['send', '--allow-insecure', strict.url, 'one two three four five']);
    expect(refused.code).toBe(EXIT_CODES.failure);
    expect(refused.err).toMatch(/POLICY_VIOLATION.*maxCostUsd/);
  });

  it('an agent delegating to itself is stopped by the recursion guard (A -> A revisit)', async () => {
    const config = dir.file('self.toml');
    await writeFile(config, TOML);
    const port = await freePort();
    const loop = await serve(['--config', config, '--port', String(port), '--delegate-to', `http://127.0.0.1:${port}`, '--allow-insecure']);
    const sent = await run(['send', '--allow-insecure', loop.url, 'around and around', '--json']);
    expect(sent.code).toBe(EXIT_CODES.taskUnsuccessful); // the task ended FAILED
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts[0]?.text).toMatch(/^delegation failed: agent error RECURSION_LIMIT: .*limit=revisit/);
  });

  it('a failure deep in a delegation reaches the caller with its reason (A -> B -> A: B refused by A, A says why)', async () => {
    const config = dir.file('pair.toml');
    await writeFile(config, TOML);
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await serve(['--config', config, '--port', String(portA), '--delegate-to', `http://127.0.0.1:${portB}`, '--allow-insecure']);
    await serve(['--config', config, '--port', String(portB), '--delegate-to', `http://127.0.0.1:${portA}`, '--allow-insecure']);
    const sent = await run(['send', '--allow-insecure', a.url, 'there and back', '--json']);
    expect(sent.code).toBe(EXIT_CODES.taskUnsuccessful);
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^delegate ended TASK_STATE_FAILED: delegation failed: agent error RECURSION_LIMIT: .*limit=revisit/,
    );
  });

  it('enforces the trust block: an allowlisted agent is served, an unlisted one FORBIDDEN, an unverified caller UNAUTHENTICATED (JSON-RPC and REST)', async () => {
    const listed = 'a1'.repeat(32);
    const unlisted = 'b2'.repeat(32);
    const config = dir.file('trust.yaml');
    await writeFile(config, `trust:\n  allowlist: ["${listed}"]\n  rules:\n    - caller: "${listed}"\n      skills: [echo]\n`);
    const keys = dir.file('keys.json');
    await writeFile(keys, JSON.stringify({ 'listed-agent-key-0001': listed, 'unlisted-agent-key-001': unlisted }));
    const agent = await serve(['--config', config, '--api-keys', keys]);

    const served = await run(['send', '--allow-insecure', agent.url, 'trusted', '--header', 'X-API-Key: listed-agent-key-0001', '--json']);
    expect(served.code).toBe(0);
    expect((JSON.parse(served.out) as { task: Task }).task.status.state).toBe('TASK_STATE_COMPLETED');
    const refused = await run(['send', '--allow-insecure', agent.url, 'stranger', '--header', 'X-API-Key: unlisted-agent-key-001']);
    expect(refused.code).toBe(EXIT_CODES.failure);
    expect(refused.err).toMatch(/FORBIDDEN.*limit=allowlist/);
    const anonymous = await run(['send', '--allow-insecure', agent.url, 'who am I']);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.err).toMatch(/UNAUTHENTICATED/);

    const viaRest = (key: string) =>
      fetch(`${agent.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'X-API-Key': key },
        body: JSON.stringify({ message: { messageId: `m-${key}`, role: 'ROLE_USER', parts: [{ text: 'rest' }] } }),
      });
    expect((await viaRest('listed-agent-key-0001')).status).toBe(200);
    expect((await viaRest('unlisted-agent-key-001')).status).toBe(403);
  });

  it('--caller-keys: a signed caller on the allowlist is served; unlisted, unknown, altered and unsigned callers are refused (JSON-RPC and REST)', async () => {
    const listedKey = generateKeyPair('EdDSA');
    const unlistedKey = generateKeyPair('EdDSA');
    const listed = agentIdFromPublicKey(listedKey.publicKey);
    const config = dir.file('signed-trust.yaml');
    await writeFile(config, `trust:\n  allowlist: ["${listed}"]\n  rules:\n    - caller: "${listed}"\n      skills: [echo]\n`);
    // Both callers' keys are known (a JWKS); knowing a key is not being allowed.
    const callerKeys = dir.file('callers.jwks.json');
    await writeFile(callerKeys, JSON.stringify(createJwks([listedKey, unlistedKey])));
    const agent = await serve(['--config', config, '--caller-keys', callerKeys]);

    const outcome = async (key: KeyPair | undefined): Promise<string> => {
      const client = createA2AClient({
        baseUrl: agent.url,
        allowInsecureLoopback: true,
        retry: { retries: 0 },
        ...(key ? { auth: createHttpRequestSigner({ key }) } : {}),
      });
      try {
        const response = await client.sendMessage({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        });
        return response.task?.status.state ?? 'message';
      } catch (error) {
        return A2AError.isInstance(error) ? error.reason : String(error);
      }
    };
    expect(await outcome(listedKey)).toBe('TASK_STATE_COMPLETED');
    expect(await outcome(unlistedKey)).toBe('FORBIDDEN');
    // Refused by the verifier's identity check, before its nonce is recorded (issue 42), not only by governance.
    const unlisted = createA2AClient({
      baseUrl: agent.url,
      allowInsecureLoopback: true,
      retry: { retries: 0 },
      auth: createHttpRequestSigner({ key: unlistedKey }),
    });
    await expect(
      unlisted.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    ).rejects.toThrow(/is not allowed to call this agent/);
    expect(await outcome(generateKeyPair('EdDSA'))).toBe('UNAUTHENTICATED'); // a key the agent does not know
    expect(await outcome(undefined)).toBe('UNAUTHENTICATED');

    const viaRest = async (key: KeyPair | undefined, alter = false) => {
      const url = `${agent.url}/a2a/rest/message:send`;
      const body = JSON.stringify({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'rest' }] } });
      const signed = key ? await createHttpRequestSigner({ key }).sign({ method: 'POST', url, body }) : {};
      return (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...signed },
          body: alter ? body.replace('rest', 'REST') : body,
        })
      ).status;
    };
    expect(await viaRest(listedKey)).toBe(200);
    expect(await viaRest(unlistedKey)).toBe(403);
    expect(await viaRest(listedKey, true)).toBe(401); // the body no longer matches its signed digest
    expect(await viaRest(undefined)).toBe(401);
  });

  it('--caller-keys with --api-keys: signed callers and API-key callers are both verified agents for the trust rules', async () => {
    const signerKey = generateKeyPair('EdDSA');
    const signer = agentIdFromPublicKey(signerKey.publicKey);
    const keyHolder = 'c3'.repeat(32);
    const config = dir.file('mixed-trust.yaml');
    await writeFile(config, `trust:\n  allowlist: ["${signer}", "${keyHolder}"]\n`);
    const callerKeys = dir.file('callers.json');
    await writeFile(callerKeys, JSON.stringify([exportPublicJwk(signerKey)]));
    const apiKeys = dir.file('mixed-keys.json');
    await writeFile(apiKeys, JSON.stringify({ 'key-holder-api-key-01': keyHolder }));
    const agent = await serve(['--config', config, '--caller-keys', callerKeys, '--api-keys', apiKeys]);

    const signed = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true, auth: createHttpRequestSigner({ key: signerKey }) });
    const message = { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'signed' }] } };
    expect((await signed.sendMessage(message)).task?.status.state).toBe('TASK_STATE_COMPLETED');
    const byKey = await run(['send', '--allow-insecure', agent.url, 'by key', '--header', 'X-API-Key: key-holder-api-key-01']);
    expect(byKey.code).toBe(0);
    const anonymous = await run(['send', '--allow-insecure', agent.url, 'who am I']);
    expect(anonymous.err).toMatch(/UNAUTHENTICATED/);
  });

  it('a2a send/get/list/cancel/subscribe --sign-with <private JWK> sign every call, over HTTP and gRPC, to an agent that requires verified callers', async () => {
    const listedKey = generateKeyPair('EdDSA');
    const listed = agentIdFromPublicKey(listedKey.publicKey);
    const unlistedKey = generateKeyPair('EdDSA');
    const config = dir.file('cli-signed.yaml');
    await writeFile(config, `trust:\n  allowlist: ["${listed}"]\n`);
    const callerKeys = dir.file('cli-callers.jwks.json');
    await writeFile(callerKeys, JSON.stringify(createJwks([listedKey, unlistedKey])));
    const listedFile = dir.file('listed.jwk.json');
    await writeFile(listedFile, JSON.stringify(exportPrivateJwk(listedKey)));
    const unlistedFile = dir.file('unlisted.jwk.json');
    await writeFile(unlistedFile, JSON.stringify(exportPrivateJwk(unlistedKey)));
    const agent = await serve(['--config', config, '--caller-keys', callerKeys, '--grpc', '0']);
    const target = agent.grpc as string;

    // HTTP (the card's JSON-RPC).
    const sent = await run(['send', agent.url, 'signed', '--allow-insecure', '--sign-with', listedFile, '--json']);
    expect(sent.err).toBe('');
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await run(['get', agent.url, task.id, '--allow-insecure', '--sign-with', listedFile, '--json']);
    expect((JSON.parse(got.out) as Task).id).toBe(task.id);
    const listedTasks = await run(['list', agent.url, '--allow-insecure', '--sign-with', listedFile, '--json']);
    expect((JSON.parse(listedTasks.out) as { tasks: Task[] }).tasks.map((t) => t.id)).toContain(task.id);
    // Past authentication and the trust gate: the agent's own answers about a finished task.
    const canceled = await run(['cancel', agent.url, task.id, '--allow-insecure', '--sign-with', listedFile]);
    expect(canceled.err).toContain('TASK_NOT_CANCELABLE');
    const subscribed = await run(['subscribe', agent.url, task.id, '--allow-insecure', '--sign-with', listedFile]);
    expect(subscribed.err).toContain('UNSUPPORTED_OPERATION');
    // Unsigned: refused; signed by a known key that is not on the allowlist: FORBIDDEN.
    expect((await run(['send', agent.url, 'unsigned', '--allow-insecure'])).err).toMatch(/UNAUTHENTICATED/);
    expect((await run(['send', agent.url, 'who', '--allow-insecure', '--sign-with', unlistedFile])).err).toMatch(/FORBIDDEN/);

    // gRPC: the bare target, and the card URL with its GRPC interface.
    const overGrpc = await run(['send', target, 'grpc signed', '--transport', 'grpc', '--plaintext', '--sign-with', listedFile, '--json']);
    expect(overGrpc.err).toBe('');
    expect((JSON.parse(overGrpc.out) as { task: Task }).task.status.state).toBe('TASK_STATE_COMPLETED');
    const streamed = await run([
      'send',
      agent.url,
      'grpc stream',
      '--stream',
      '--transport',
      'grpc',
      '--plaintext',
      '--allow-insecure',
      '--sign-with',
      listedFile,
    ]);
    expect(streamed.code).toBe(0);
    expect((await run(['send', target, 'unsigned', '--transport', 'grpc', '--plaintext'])).err).toMatch(/UNAUTHENTICATED/);
    const grpcList = await run(['list', target, '--transport', 'grpc', '--plaintext', '--sign-with', listedFile, '--json']);
    expect((JSON.parse(grpcList.out) as { tasks: Task[] }).tasks.length).toBeGreaterThanOrEqual(3);

    // A public JWK cannot sign: one line, exit 1.
    const publicFile = dir.file('public.jwk.json');
    await writeFile(publicFile, JSON.stringify(exportPublicJwk(listedKey)));
    const refused = await run(['list', agent.url, '--allow-insecure', '--sign-with', publicFile]);
    expect(refused.code).toBe(EXIT_CODES.failure);
    expect(refused.err.trim().split('\n')).toHaveLength(1);
  });

  it('a2a serve accepts the fast path: a caller that knows the agent key signs hmac-sha256 (decision 0028)', async () => {
    const callerKey = generateKeyPair('EdDSA');
    const config = dir.file('fast.yaml');
    await writeFile(config, `trust:\n  allowlist: ["${agentIdFromPublicKey(callerKey.publicKey)}"]\n`);
    const callerKeys = dir.file('fast-callers.json');
    await writeFile(callerKeys, JSON.stringify([exportPublicJwk(callerKey)]));
    const agent = await serve(['--config', config, '--caller-keys', callerKeys]);
    const jwks = (await (await fetch(`${agent.url}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
    const imported = importJwk(jwks.keys[0]);
    if (!imported.ok) throw new Error(imported.reason);
    const signer = createHttpRequestSigner({ key: callerKey, serverKey: toVerificationKey(imported.key) });
    const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true, auth: signer });
    const seen: string[] = [];
    const recording = {
      async apply(request: Parameters<typeof signer.apply>[0]) {
        await signer.apply(request);
        seen.push(request.headers.get('signature-input') ?? '');
      },
    };
    const fast = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true, auth: recording });
    const message = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'fast' }] } });
    expect((await fast.sendMessage(message())).task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(seen.at(-1)).toContain('alg="hmac-sha256"');
    expect((await client.sendMessage(message())).task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a2a serve advertises the fast path on its card, and a2a send --sign-with and serve --delegate-to use it by themselves (decision 0037)', async () => {
    const callerKey = generateKeyPair('EdDSA');
    const frontKey = generateKeyPair('EdDSA');
    const config = dir.file('auto.yaml');
    const allowed = [callerKey, frontKey].map((k) => `"${agentIdFromPublicKey(k.publicKey)}"`).join(', ');
    await writeFile(config, `trust:\n  allowlist: [${allowed}]\n`);
    const callerKeys = dir.file('auto-callers.json');
    await writeFile(callerKeys, JSON.stringify([exportPublicJwk(callerKey), exportPublicJwk(frontKey)]));
    const callerFile = dir.file('auto-caller.jwk.json');
    await writeFile(callerFile, JSON.stringify(exportPrivateJwk(callerKey)));
    const frontFile = dir.file('auto-front.jwk.json');
    await writeFile(frontFile, JSON.stringify(exportPrivateJwk(frontKey)));
    // The alg of every signed request that reaches the back agent, as sent.
    const algs: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const alg = /alg="([^"]+)"/.exec(request.headers.get('signature-input') ?? '')?.[1];
      if (alg) algs.push(alg);
      return fetch(request);
    };
    const back = await serve(['--config', config, '--caller-keys', callerKeys]);
    const card = (await (await fetch(`${back.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: Array<{ uri: string; params?: unknown }> };
    };
    expect(card.capabilities.extensions.find((e) => e.uri === REQUEST_SIGNATURES_EXTENSION_URI)?.params).toEqual({
      algs: ['ed25519', 'hmac-sha256'],
    });

    const sent = await run(['send', back.url, 'auto', '--allow-insecure', '--sign-with', callerFile, '--json'], { fetch: recording });
    expect(sent.err).toBe('');
    expect((JSON.parse(sent.out) as { task: Task }).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(algs).toEqual(['hmac-sha256']);
    const opted = await run(
      ['send', back.url, 'opt out', '--allow-insecure', '--sign-with', callerFile, '--request-signature', 'ed25519'],
      {
        fetch: recording,
      },
    );
    expect(opted.code).toBe(0);
    expect(algs.at(-1)).toBe('ed25519');
    expect((await run(['send', back.url, 'x', '--request-signature', 'hmac'])).code).toBe(EXIT_CODES.usage);

    // The front agent signs what it delegates with its own key: the fast path again.
    const open = dir.file('auto-front.toml');
    await writeFile(open, TOML);
    const front = await serve(['--config', open, '--key', frontFile, '--delegate-to', back.url, '--allow-insecure'], recording);
    const through = await run(['send', front.url, 'through', '--allow-insecure', '--json']);
    expect(through.err).toBe('');
    expect((JSON.parse(through.out) as { task: Task }).task.artifacts?.[0]?.parts).toEqual([{ text: 'through' }]);
    expect(algs.at(-1)).toBe('hmac-sha256');
    expect(algs).toHaveLength(3);

    // Without --caller-keys the agent verifies no signatures, and advertises none.
    const plain = await serve(['--config', open]);
    const plainCard = (await (await fetch(`${plain.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: Array<{ uri: string }> };
    };
    expect(plainCard.capabilities.extensions.map((e) => e.uri)).not.toContain(REQUEST_SIGNATURES_EXTENSION_URI);
  });

  it('refuses a caller key file that is not a list of Ed25519 public JWKs (exit 1, one line)', async () => {
    const config = dir.file('plain-callers.toml');
    await writeFile(config, TOML);
    const files: Array<[string, unknown, RegExp]> = [
      ['callers-object.json', { kty: 'OKP' }, /expected a JWKS \{ "keys": \[\.\.\.\] \} or a JSON list of JWKs/],
      ['callers-empty.json', { keys: [] }, /expected at least one key/],
      ['callers-private.json', [exportPrivateJwk(generateKeyPair('EdDSA'))], /keys\[0\] is a private key/],
      ['callers-es256.json', [exportPublicJwk(generateKeyPair('ES256'))], /expected Ed25519 keys, got ES256 at keys\[0\]/],
      ['callers-junk.json', [{ kty: 'OKP', crv: 'Ed25519', x: '!!' }], /keys\[0\]:/],
    ];
    for (const [name, content, pattern] of files) {
      const file = dir.file(name);
      await writeFile(file, JSON.stringify(content));
      const result = await run(['serve', '--config', config, '--caller-keys', file]);
      expect(result.code, name).toBe(EXIT_CODES.failure);
      expect(result.err.trim().split('\n'), name).toHaveLength(1);
      expect(result.err, name).toMatch(pattern);
    }
  });

  it('without a trust block every caller is served, with an info line (ADR-159 allow-all default)', async () => {
    const config = dir.file('open.toml');
    await writeFile(config, TOML);
    const controller = new AbortController();
    const captured = captureIo({ signal: controller.signal });
    const exit = runCli(['serve', '--json', '--config', config], captured.io);
    for (let i = 0; i < 500 && !captured.out().includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
    const { url } = JSON.parse(captured.out().split('\n')[0] as string) as { url: string };
    expect((await run(['send', '--allow-insecure', url, 'anyone'])).code).toBe(0);
    expect(captured.err()).toMatch(/info: trust allow-all/);
    controller.abort();
    expect(await exit).toBe(0);
  });

  it('refuses an API key file that is not { key: AgentID } (exit 1, one line)', async () => {
    const config = dir.file('plain.toml');
    await writeFile(config, TOML);
    const short = dir.file('short.json');
    await writeFile(short, JSON.stringify({ abc: 'a1'.repeat(32) }));
    const bad = dir.file('bad.json');
    await writeFile(bad, JSON.stringify({ 'long-enough-key-0001': 'agent-7' }));
    for (const [file, pattern] of [
      [short, /expected keys of at least 16 characters/],
      [bad, /expected an AgentID/],
    ] as const) {
      const result = await run(['serve', '--config', config, '--api-keys', file]);
      expect(result.code).toBe(EXIT_CODES.failure);
      expect(result.err.trim().split('\n')).toHaveLength(1);
      expect(result.err).toMatch(pattern);
    }
  });

  it('config errors are one line, exit 1: missing file, invalid TOML, unknown field', async () => {
    const missing = await run(['serve', '--config', dir.file('nope.toml')]);
    expect(missing.code).toBe(EXIT_CODES.failure);
    expect(missing.err).toBe(`error: cannot read ${dir.file('nope.toml')}: no such file\n`);

    const unknownFormat = await run(['serve', '--config', dir.file('config.ini')]);
    expect(unknownFormat.code).toBe(EXIT_CODES.usage);
    expect(unknownFormat.err).toContain('expected a .toml, .yaml, .yml or .json file');

    const broken = dir.file('broken.toml');
    await writeFile(broken, '[recursion\nmax_call_depth = ');
    const invalid = await run(['serve', '--config', broken]);
    expect(invalid.code).toBe(EXIT_CODES.failure);
    expect(invalid.err).toMatch(/^error: invalid operator config .*broken\.toml: invalid TOML: /);
    expect(invalid.err.trim().split('\n')).toHaveLength(1);

    const unknown = dir.file('unknown.json');
    await writeFile(unknown, JSON.stringify({ recursion: { max_depth: 3 } }));
    const bad = await run(['serve', '--config', unknown]);
    expect(bad.code).toBe(EXIT_CODES.failure);
    expect(bad.err).toContain('recursion');
  });

  it('usage errors: no --config, bad port, bad --delegate-to URL', async () => {
    expect((await run(['serve'])).code).toBe(EXIT_CODES.usage);
    const config = dir.file('ok.toml');
    await writeFile(config, TOML);
    expect((await run(['serve', '--config', config, '--port', '70000'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['serve', '--config', config, '--delegate-to', 'nowhere'])).code).toBe(EXIT_CODES.usage);
  });

  it('--grpc serves the agent over gRPC too; a2a calls it with --transport grpc (target or card URL)', async () => {
    const config = dir.file('grpc.toml');
    await writeFile(config, TOML);
    const agent = await serve(['--config', config, '--grpc', '0']);
    expect(agent.grpc).toMatch(/^127\.0\.0\.1:\d+$/);
    const target = agent.grpc as string;

    const card = await run(['card', agent.url, '--allow-insecure', '--json']);
    expect(JSON.parse(card.out).card.supportedInterfaces).toContainEqual({ url: target, protocolBinding: 'GRPC', protocolVersion: '1.0' });

    // A bare gRPC target: no card, no HTTP.
    const sent = await run(['send', target, 'over grpc', '--transport', 'grpc', '--plaintext', '--json']);
    expect(sent.err).toBe('');
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts[0]?.text).toBe('over grpc');

    // The card URL: the CLI reads the card and dials its GRPC interface.
    const streamed = await run([
      'send',
      agent.url,
      'streamed',
      '--stream',
      '--transport',
      'grpc',
      '--plaintext',
      '--allow-insecure',
      '--json',
    ]);
    expect(streamed.err).toBe('');
    const events = streamed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, { status?: { state: string } }>);
    expect(events.at(-1)?.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');

    const got = await run(['get', target, task.id, '--transport', 'grpc', '--plaintext', '--json']);
    expect((JSON.parse(got.out) as Task).id).toBe(task.id);
    const listed = await run(['list', target, '--transport', 'grpc', '--plaintext', '--json']);
    expect((JSON.parse(listed.out) as { tasks: Task[] }).tasks).toHaveLength(2);
    const subscribed = await run(['subscribe', target, task.id, '--transport', 'grpc', '--plaintext']);
    expect(subscribed.code).toBe(EXIT_CODES.failure);
    expect(subscribed.err).toContain('UNSUPPORTED_OPERATION');
    const canceled = await run(['cancel', target, task.id, '--transport', 'grpc', '--plaintext']);
    expect(canceled.code).toBe(EXIT_CODES.failure);
    expect(canceled.err).toContain('TASK_NOT_CANCELABLE');
  });

  it('--transport usage errors', async () => {
    expect((await run(['list', 'http://127.0.0.1:1', '--transport', 'carrier-pigeon'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['list', 'not a target', '--transport', 'grpc'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['list', 'http://127.0.0.1:1', '--plaintext'])).code).toBe(EXIT_CODES.usage);
    // A bare target has no card to verify.
    expect((await run(['list', '127.0.0.1:1', '--transport', 'grpc', '--require-signed'])).code).toBe(EXIT_CODES.usage);
  });
});
