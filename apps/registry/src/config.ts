import type { RegistryServiceOptions } from '@a2aplane/a2a-registry';

/** The service's settings from its environment (never from arguments: tokens are secrets). */
export function configFromEnv(env: Record<string, string | undefined>): RegistryServiceOptions {
  const port = Number(env.PORT ?? '8470');
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
  const operatorTokens: Record<string, string> = {};
  // REGISTRY_OPERATOR_TOKENS="alice=<token>,ci=<token>"
  for (const pair of (env.REGISTRY_OPERATOR_TOKENS ?? '').split(',').filter((entry) => entry.trim() !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new RangeError('REGISTRY_OPERATOR_TOKENS must be name=token pairs separated by commas');
    operatorTokens[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  const flag = (name: string) => env[name] === '1' || env[name] === 'true';
  const outbound = { allowLoopback: flag('REGISTRY_ALLOW_LOOPBACK'), allowPrivate: flag('REGISTRY_ALLOW_PRIVATE') };
  const probeMs = Number(env.REGISTRY_PROBE_INTERVAL_MS ?? '60000');
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    operatorTokens,
    ...(env.REGISTRY_PUBLIC_URL ? { publicUrl: env.REGISTRY_PUBLIC_URL } : {}),
    registryOptions: outbound,
    prober: flag('REGISTRY_NO_PROBE') ? false : { ...outbound, intervalMs: probeMs },
  };
}
