import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRegistry, type Registry, type RegistryOptions } from '../core/registry.js';
import { createProber, type Prober, type ProberOptions } from '../prober/prober.js';
import { createRegistryRequestHandler, type RegistryHandlerOptions } from './handler.js';

export interface RegistryServiceOptions extends RegistryHandlerOptions {
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** The registry to serve; default `createRegistry(registryOptions)`. */
  registry?: Registry;
  registryOptions?: RegistryOptions;
  /** The prober's options, or `false` for no prober (another replica runs it). Default: on, every 60 s. */
  prober?: ProberOptions | false;
}

export interface RegistryService {
  url: string;
  registry: Registry;
  prober?: Prober;
  close(): Promise<void>;
}

/** The registry as a service on node:http, with its prober: what `apps/registry` and `a2a registry serve` run. */
export async function startRegistryService(options: RegistryServiceOptions = {}): Promise<RegistryService> {
  const registry = options.registry ?? createRegistry(options.registryOptions);
  const http: Server = createServer(createRegistryRequestHandler(registry, options));
  http.headersTimeout = 10_000;
  http.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { address, port, family } = http.address() as AddressInfo;
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  const prober =
    options.prober === false
      ? undefined
      : createProber(registry, {
          ...(options.registryOptions?.allowLoopback ? { allowLoopback: true } : {}),
          ...(options.registryOptions?.allowPrivate ? { allowPrivate: true } : {}),
          ...options.prober,
        });
  prober?.start();
  return {
    url,
    registry,
    ...(prober ? { prober } : {}),
    async close() {
      await prober?.stop();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
      await registry.store.close?.();
    },
  };
}
