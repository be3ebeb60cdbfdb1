import type { ComponentType } from 'preact';
import { AgentView } from './views/agent/agent-view.js';
import { MeshView } from './views/mesh/mesh-view.js';

/** One top-level view: shown at `#/<id>` and as a tab. Add views here. */
export interface ConsoleRouteView {
  id: string;
  label: string;
  view: ComponentType;
}

export const ROUTES: readonly ConsoleRouteView[] = [
  { id: 'agent', label: 'Agent', view: AgentView },
  { id: 'mesh', label: 'Mesh', view: MeshView },
];
