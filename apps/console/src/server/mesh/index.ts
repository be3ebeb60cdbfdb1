import type { ConsoleRoute } from '../types.js';
import { createMeshApiRoute } from './mesh-api.js';
import { createOtlpRoute, type OtlpRouteOptions } from './otlp-route.js';
import { createRegistryView, type RegistryView } from './registry.js';
import { createTraceStore, type TraceStore, type TraceStoreOptions } from './trace-store.js';

export { OTLP_TRACES_PATH } from './otlp-route.js';
export type { RegistryAgent } from './registry.js';

export interface MeshOptions {
  /** The registry whose agents the mesh view lists and the relay may reach (`--registry URL`). */
  registryUrl?: string;
  traces?: TraceStoreOptions;
  otlp?: OtlpRouteOptions;
}

export interface Mesh {
  /** Mount with `createConsoleServer({ routes })`: OTLP intake and the mesh API. */
  readonly routes: readonly ConsoleRoute[];
  /** For the relay's `isListedOrigin`: registry-listed origins (false without a registry). */
  isListedOrigin(origin: string): Promise<boolean>;
  readonly traces: TraceStore;
  readonly registry: RegistryView | undefined;
}

/** The mesh part of the console's backend: trace intake and store, the registry view (decision record 0125). */
export function createMesh(options: MeshOptions = {}): Mesh {
  const traces = createTraceStore(options.traces);
  const registry = options.registryUrl === undefined ? undefined : createRegistryView({ url: options.registryUrl });
  return {
    routes: [createOtlpRoute(traces, options.otlp), createMeshApiRoute(traces, registry)],
    isListedOrigin: (origin) => registry?.isListedOrigin(origin) ?? Promise.resolve(false),
    traces,
    registry,
  };
}
