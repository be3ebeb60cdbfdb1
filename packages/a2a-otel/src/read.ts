/**
 * Reading traces back (browser-safe, no dependency): OTLP/HTTP JSON to spans, the delegation
 * tree of a trace as `a2a-otel` records it, and a waterfall layout. Shared by the console and the
 * control-plane demo's report (decision record 0125).
 */
export { type OtlpReadLimits, OtlpReadError, readOtlpJson, readOtlpTraces, toOtlpJson } from './read/otlp.js';
export { orderSpans, type SpanAttributeValue, type TraceSpan } from './read/spans.js';
export { type TraceSummary, summarizeTrace } from './read/summary.js';
export { type BudgetStanding, buildDelegationTree, type DelegationHop, flattenHops, type GovernanceDecision } from './read/tree.js';
export { type Waterfall, type WaterfallRow, waterfall } from './read/waterfall.js';
