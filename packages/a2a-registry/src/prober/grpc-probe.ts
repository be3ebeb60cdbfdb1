import { randomUUID } from 'node:crypto';
import { checkOutboundUrl } from '../core/fetch-text.js';
import type { GrpcTarget } from '../core/grpc-target.js';
import type { BindingVerdict, ExchangeOptions } from './binding.js';

type GrpcClientModule = typeof import('@a2aplane/a2a-grpc/client');
type GrpcJsModule = typeof import('@grpc/grpc-js');

/** Said when the optional peer dependencies are missing (decision 0145). */
const GRPC_PROBE_NEEDS = 'gRPC probing needs @a2aplane/a2a-grpc and @grpc/grpc-js installed beside @a2aplane/a2a-registry';

let loading: Promise<{ client: GrpcClientModule; grpc: GrpcJsModule } | undefined> | undefined;

/**
 * The gRPC client, loaded on the first gRPC interface probed: registries whose agents offer no
 * gRPC never load it, and a registry installed without it probes the other bindings.
 */
function loadGrpc(): Promise<{ client: GrpcClientModule; grpc: GrpcJsModule } | undefined> {
  loading ??= Promise.all([import('@a2aplane/a2a-grpc/client'), import('@grpc/grpc-js')]).then(
    ([client, grpc]) => ({ client, grpc }),
    () => undefined,
  );
  return loading;
}

const failure = (detail: string, down = false): BindingVerdict => ({ binding: 'GRPC', ok: false, down, detail });

/** grpc-js's status details without their timestamp and resolver notes: a stable, short reason. */
const tidy = (details: unknown): string =>
  String(details ?? '')
    .replace(/\s*\(\d{4}-\d\d-\d\dT[^)]*\)/g, '')
    .replace(/\s*Resolution note:.*$/s, '')
    .trim();

/** What a GetTask call's error says about the agent. */
function judge(error: unknown, grpc: GrpcJsModule, timeoutMs: number): BindingVerdict {
  const value = error as { name?: unknown; reason?: unknown; cause?: { code?: unknown; details?: unknown } } | undefined;
  if (value?.reason === 'TASK_NOT_FOUND') return { binding: 'GRPC', ok: true, down: false, detail: '' };
  if (value?.reason === 'UNAUTHENTICATED' || value?.reason === 'FORBIDDEN') {
    return {
      binding: 'GRPC',
      ok: false,
      down: false,
      auth: true,
      detail: `answered ${value.reason}: authentication required (gRPC probes are not signed)`,
    };
  }
  if (value?.name === 'A2ATimeoutError') return failure(`no answer within ${timeoutMs} ms`, true);
  const code = value?.cause?.code;
  if (typeof code === 'number') {
    const name = grpc.status[code] ?? String(code);
    if (code === grpc.status.UNAVAILABLE) {
      const details = tidy(value?.cause?.details);
      // The port took the connection and sent bytes that are not HTTP/2: something answers there, not gRPC.
      if (/\bProtocol error\b/.test(details)) return failure(`the port answered bytes that are not HTTP/2 (gRPC ${name}: ${details})`);
      return failure(`unreachable: gRPC ${name}: ${details}`, true);
    }
    return failure(`GetTask of an unknown id answered gRPC ${name} without ErrorInfo TASK_NOT_FOUND, expected NOT_FOUND TaskNotFound`);
  }
  if (typeof value?.reason === 'string') return failure(`GetTask of an unknown id answered ${value.reason}, expected TASK_NOT_FOUND`);
  return failure(`GetTask of an unknown id failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * gRPC `GetTask` of an unknown id must answer NOT_FOUND with ErrorInfo reason TASK_NOT_FOUND
 * (spec §10.6), through a2a-grpc's transport: one unary call, a deadline, 64 KiB messages, the
 * SSRF rules on the target, the channel closed after. Unsigned (see decision 0145).
 */
export async function probeGrpc(target: GrpcTarget, options: ExchangeOptions): Promise<BindingVerdict> {
  const check = await checkOutboundUrl(`${target.tls ? 'https' : 'http'}://${target.target}/`, options);
  if (!check.ok) return failure(check.reason, true);
  const modules = await loadGrpc();
  if (!modules) return { binding: 'GRPC', ok: false, down: false, unprobed: true, detail: GRPC_PROBE_NEEDS };
  const { client, grpc } = modules;
  const transport = client.createGrpcTransport({
    target: target.target,
    credentials: target.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(),
    channelOptions: {
      'grpc.max_receive_message_length': 65_536,
      'grpc.max_send_message_length': 65_536,
      'grpc.enable_retries': 0,
      'grpc.service_config_disable_resolution': 1,
      'grpc.enable_channelz': 0,
    },
  });
  try {
    await options.track(() => transport.call('GetTask', { id: `probe-${randomUUID()}` }, { timeoutMs: options.timeoutMs }));
    return failure('GetTask of an unknown id answered a task, expected NOT_FOUND TaskNotFound');
  } catch (error) {
    return judge(error, grpc, options.timeoutMs);
  } finally {
    transport.close();
  }
}
