import { describe, expect, it } from 'vitest';
import { OPERATION_MESSAGES, renameProtoFields } from '../src/proto-rename.js';
import { paramsToRestRequest } from '../src/rest-routes.js';
import { parseTraceparent, taskContextFromWire, traceparentFor, withTaskContext } from '../src/task-context.js';

// The modules a client loads on demand through `/proto-rename`, `/rest-routes` and `/task-context`
// (decision 0044): each works on its own, with the root's results.
describe('the subpaths a client loads on demand', () => {
  it('proto-rename: renames proto names at any depth and reports a field sent under both names', () => {
    const violations: { field: string; description: string }[] = [];
    const type = OPERATION_MESSAGES.GetTask.result;
    expect(type).toBe('Task');
    const renamed = renameProtoFields('Task', { id: 't', context_id: 'c', status: { message: { message_id: 'm' } } }, '', violations);
    expect(renamed).toEqual({ id: 't', contextId: 'c', status: { message: { messageId: 'm' } } });
    expect(violations).toEqual([]);
    renameProtoFields('Task', { context_id: 'c', contextId: 'c' }, 'result', violations);
    expect(violations.map((v) => v.field)).toEqual(['result.context_id']);
  });

  it('rest-routes: builds the REST request of an operation', () => {
    const parts = paramsToRestRequest('GetTask', { id: 't 1', historyLength: 2 });
    expect(parts.verb).toBe('GET');
    expect(parts.path).toBe('/tasks/t%201');
    expect(parts.query.toString()).toBe('historyLength=2');
  });

  it('task-context: withTaskContext writes the lineage into a copy of the message metadata; traceparentFor reads either case', () => {
    const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 2, rootAgentId: 'root', visitedAgents: ['root', 'a'] };
    const request = { message: { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'x' }], metadata: { keep: 1 } } };
    const sent = withTaskContext(request, context);
    expect(sent.message.metadata?.keep).toBe(1);
    const wire = (sent.message.metadata as unknown as { ruvector: { context: Parameters<typeof taskContextFromWire>[0] } }).ruvector
      .context;
    expect(taskContextFromWire(wire)).toMatchObject({ traceId: context.traceId, depth: 2 });
    expect(request.message.metadata).toEqual({ keep: 1 });

    const header = traceparentFor(context.traceId.toUpperCase());
    expect(parseTraceparent(header ?? '')?.traceId).toBe(context.traceId);
    expect(traceparentFor('not-a-trace-id')).toBeUndefined();
    expect(traceparentFor('0'.repeat(32))).toBeUndefined();
  });
});
