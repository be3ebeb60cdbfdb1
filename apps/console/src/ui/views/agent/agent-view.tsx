/** Any agent by URL: the card and its verdict, then a conversation with it. */
export function AgentView() {
  return (
    <section class="panel" data-testid="agent-view">
      <h2>Agent</h2>
    </section>
  );
}
