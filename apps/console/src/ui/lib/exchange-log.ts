/** One HTTP exchange with an agent, as the raw log shows it (secrets already redacted). */
export interface Exchange {
  id: number;
  method: string;
  url: string;
  /** `direct` from the browser, or through the console's `relay`. */
  via: 'direct' | 'relay';
  /** The A2A operation when the body names one (JSON-RPC `method`), else the REST path. */
  operation: string;
  requestHeaders: Record<string, string>;
  requestBody: string | undefined;
  status?: number;
  responseHeaders?: Record<string, string>;
  /** The body as text (a stream's events as they arrive), cut at 64 KiB. */
  responseBody?: string;
  /** The last SSE `id:` seen on a stream: where a resubscribe resumes. */
  lastEventId?: string;
  error?: string;
  startedAt: number;
  /** ms until the response headers. */
  headersMs?: number;
  /** ms until the body ended (a stream: until it closed). */
  totalMs?: number;
}

type Listener = () => void;

/** The raw log: a list that notifies views when an exchange is added or changes. */
export function createExchangeLog(limit = 500) {
  let entries: Exchange[] = [];
  let nextId = 1;
  const listeners = new Set<Listener>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  return {
    start(entry: Omit<Exchange, 'id'>): Exchange {
      const exchange: Exchange = { ...entry, id: nextId++ };
      entries = [...entries.slice(-(limit - 1)), exchange];
      notify();
      return exchange;
    },
    update(exchange: Exchange, change: Partial<Exchange>): void {
      Object.assign(exchange, change);
      entries = [...entries];
      notify();
    },
    entries: (): readonly Exchange[] => entries,
    clear(): void {
      entries = [];
      notify();
    },
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ExchangeLog = ReturnType<typeof createExchangeLog>;
