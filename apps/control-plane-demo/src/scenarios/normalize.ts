/**
 * Replaces generated identifiers and timestamps with stable placeholders so that two runs of the
 * same request compare equal "modulo ids and timestamps" (ADR-159 acceptance test 1). The n-th
 * distinct value of an id field becomes `<field#n>`, so the structure of references is kept.
 * Everything else, metadata included (the lineage each message carries), is compared as it is.
 */
const ID_FIELDS = new Set(['id', 'taskId', 'contextId', 'messageId', 'trace_id', 'parent_task_id']);

export function normalizeRun(value: unknown): unknown {
  const seen = new Map<string, string>();
  const counters = new Map<string, number>();
  const placeholder = (field: string, raw: string): string => {
    const key = `${field}:${raw}`;
    let name = seen.get(key);
    if (!name) {
      const n = (counters.get(field) ?? 0) + 1;
      counters.set(field, n);
      name = `<${field}#${n}>`;
      seen.set(key, name);
    }
    return name;
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === 'timestamp') continue;
      out[key] = ID_FIELDS.has(key) && typeof child === 'string' ? placeholder(key === 'id' ? 'taskId' : key, child) : walk(child);
    }
    return out;
  };
  return walk(value);
}
