import './mesh.css';
import { useMeshLocation } from './mesh-route.js';
import { RegistryAgents } from './registry-agents.js';
import { TraceView } from './trace-view.js';
import { TracesList } from './traces-list.js';

/** The mesh: recent traces (from the agents' OTLP exporters) and the registry's agents; a trace opens its tree and waterfall. */
export function MeshView() {
  const where = useMeshLocation();
  return (
    <div data-testid="mesh-view">
      {where.view === 'trace' ? (
        <TraceView traceId={where.traceId} />
      ) : (
        <>
          <TracesList />
          <RegistryAgents />
        </>
      )}
    </div>
  );
}
