import { type BudgetCut, formatTraceparent, taskContextToWire } from '@a2aplane/a2a-governance';
import { BudgetExceededError, PolicyViolationError } from '@a2aplane/a2a-types';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { McpToolRefusedError } from './errors.js';

/** Spend of one tool call. */
export interface McpUsage {
  usd?: number;
  tokens?: number;
}

/** The lineage the task runs under (a2a-governance `TaskContext`, or a server's `TaskContextLike`). */
export interface McpLineage {
  readonly traceId: string;
  readonly parentTaskId?: string;
  readonly depth: number;
  readonly rootAgentId: string;
  readonly visitedAgents: readonly string[];
}

/**
 * What the helper needs of the task: a2a-governance's `GovernedTask` fits as is; in a server's
 * executor use `executorTask(context, events)`. A meter call returns a budget cut or aborts `signal`.
 */
export interface MeteredTask {
  readonly context: McpLineage | undefined;
  readonly signal: AbortSignal;
  meterUsd(usd: number): BudgetCut | undefined;
  meterTokens(tokens: number): BudgetCut | undefined;
}

/** One tool call, as the estimator and the policy see it. */
export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown> | undefined;
}

export interface GovernedMcpClientOptions {
  /** A connected MCP client session (the official SDK's `Client`). */
  client: Pick<Client, 'callTool'>;
  task: MeteredTask;
  /**
   * The cost of a call before it is sent, metered up front so the budget refuses the call rather
   * than learn about it afterwards. Usage the tool reports (`_meta.ruvector.usage`) above the
   * estimate is metered when the result arrives.
   */
  estimate?: (call: McpToolCall) => McpUsage | undefined;
  /** The operator's policy: `true` sends the call, a string refuses it with that reason. */
  allow?: (call: McpToolCall) => true | string;
  /** Spans each call under the active span (the executor's run with a2a-otel). Optional. */
  tracer?: Tracer;
}

export interface GovernedMcpClient {
  /** `client.callTool` under the task's trace, policy and budget; refusals are `McpToolRefusedError`. */
  callTool(call: McpToolCall, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<CallToolResult>;
  /** What this helper metered so far. */
  readonly spent: Readonly<Required<McpUsage>>;
}

/** The task's executor view, for an executor of `@a2aplane/a2a-server-express`: usage goes through `reportUsage`. */
export function executorTask(
  context: { readonly taskContext: McpLineage | undefined; readonly signal: AbortSignal },
  events: { reportUsage(usage: { tokens?: number; usd?: number }): void },
): MeteredTask {
  return {
    context: context.taskContext,
    signal: context.signal,
    // The server ends the task on a cut and aborts its signal, which the helper checks after metering.
    meterUsd: (usd) => {
      events.reportUsage({ usd });
      return undefined;
    },
    meterTokens: (tokens) => {
      events.reportUsage({ tokens });
      return undefined;
    },
  };
}

const positive = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** Usage the tool reported in its result's `_meta.ruvector.usage`, if well-formed. */
export function reportedUsage(result: { _meta?: Record<string, unknown> }): McpUsage | undefined {
  const ns = result._meta?.ruvector as { usage?: { usd?: unknown; tokens?: unknown } } | undefined;
  const usage = ns?.usage;
  if (!usage || typeof usage !== 'object') return undefined;
  const out: McpUsage = {};
  if (positive(usage.usd)) out.usd = usage.usd;
  if (positive(usage.tokens)) out.tokens = usage.tokens;
  return out.usd === undefined && out.tokens === undefined ? undefined : out;
}

function refusalFor(signal: AbortSignal, tool: string): McpToolRefusedError {
  const reason: unknown = signal.reason;
  if (reason instanceof BudgetExceededError)
    return new McpToolRefusedError('budget', tool, `${tool}: the task's budget is spent`, { cause: reason });
  if (reason instanceof PolicyViolationError)
    return new McpToolRefusedError('policy', tool, `${tool}: the task's policy limit was reached`, { cause: reason });
  return new McpToolRefusedError('aborted', tool, `${tool}: the task was stopped`);
}

export function createGovernedMcpClient(options: GovernedMcpClientOptions): GovernedMcpClient {
  const { client, task, estimate, allow, tracer } = options;
  const spent = { usd: 0, tokens: 0 };

  /** Meters usage; a budget cut or an aborted task is a refusal (thrown). */
  const meter = async (usage: McpUsage | undefined, tool: string): Promise<void> => {
    const cuts: (BudgetCut | undefined)[] = [];
    if (positive(usage?.usd)) {
      spent.usd += usage.usd;
      cuts.push(task.meterUsd(usage.usd));
    }
    if (positive(usage?.tokens)) {
      spent.tokens += usage.tokens;
      cuts.push(task.meterTokens(usage.tokens));
    }
    for (const cut of await Promise.all(cuts)) {
      if (cut) throw new McpToolRefusedError('budget', tool, `${tool}: the task's budget is spent`, { cause: cut });
    }
    if (task.signal.aborted) throw refusalFor(task.signal, tool);
  };

  const send = async (call: McpToolCall, span: Span | undefined, options: { signal?: AbortSignal; timeoutMs?: number }) => {
    const lineage = task.context;
    const meta: Record<string, unknown> = {};
    const spanContext = span?.spanContext();
    // The hop's own span when traced (its sampling flag too), else the task's trace with a fresh span id.
    if (spanContext) meta.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags & 1}`;
    else if (lineage) meta.traceparent = formatTraceparent(lineage);
    if (lineage) meta.ruvector = { context: taskContextToWire(lineage) };
    const signal = options.signal ? AbortSignal.any([task.signal, options.signal]) : task.signal;
    const result = (await client.callTool({ name: call.name, arguments: call.arguments, _meta: meta }, undefined, {
      signal,
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    })) as CallToolResult;
    return result;
  };

  const callTool = async (call: McpToolCall, callOptions: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<CallToolResult> => {
    const tool = call.name;
    if (task.signal.aborted) throw refusalFor(task.signal, tool);
    const verdict = allow ? allow(call) : true;
    if (verdict !== true) throw new McpToolRefusedError('policy', tool, `${tool}: refused by policy: ${verdict}`);
    const estimated = estimate?.(call);
    await meter(estimated, tool);
    const run = async (span: Span | undefined) => {
      try {
        const result = await send(call, span, callOptions);
        const reported = reportedUsage(result);
        const extra: McpUsage = {};
        if (reported?.usd !== undefined && reported.usd > (estimated?.usd ?? 0)) extra.usd = reported.usd - (estimated?.usd ?? 0);
        if (reported?.tokens !== undefined && reported.tokens > (estimated?.tokens ?? 0))
          extra.tokens = reported.tokens - (estimated?.tokens ?? 0);
        span?.setAttributes(costAttributes(reported ?? estimated));
        if (result.isError) span?.setStatus({ code: 2, message: 'tool error' });
        // The call happened: its spend counts even when it cuts the budget; later calls are refused.
        await meter(extra, tool).catch(() => undefined);
        return result;
      } catch (error) {
        span?.setStatus({ code: 2, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span?.end();
      }
    };
    if (!tracer) return run(undefined);
    const attributes: Attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool };
    return tracer.startActiveSpan(`tools/call ${tool}`, { kind: 2 /* SpanKind.CLIENT */, attributes }, run);
  };

  return { callTool, spent };
}

function costAttributes(usage: McpUsage | undefined): Attributes {
  const out: Attributes = {};
  if (usage?.usd !== undefined) out['a2a.cost.usd'] = usage.usd;
  if (usage?.tokens !== undefined) out['a2a.usage.tokens'] = usage.tokens;
  return out;
}
