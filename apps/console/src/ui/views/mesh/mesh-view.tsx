/** The mesh: registry agents, traces and the delegation tree (built on this slot by the mesh views). */
export function MeshView() {
  return (
    <section class="panel" data-testid="mesh-view">
      <h2>Mesh</h2>
      <p class="muted">The mesh views (registry agents, traces, delegation trees) mount here.</p>
    </section>
  );
}
