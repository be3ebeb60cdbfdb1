import { useEffect, useState } from 'preact/hooks';

/** Where in the mesh view the hash points: `#/mesh` (traces and registry), `#/mesh/trace/{traceId}`. */
export type MeshLocation = { view: 'overview' } | { view: 'trace'; traceId: string };

function read(): MeshLocation {
  const [, sub, id] = location.hash.replace(/^#\/?/, '').split('?')[0]?.split('/') ?? [];
  return sub === 'trace' && id !== undefined && /^[0-9a-f]{32}$/.test(id) ? { view: 'trace', traceId: id } : { view: 'overview' };
}

export const traceHref = (traceId: string): string => `#/mesh/trace/${traceId}`;
/** The agent view, its URL field filled with `url`. */
export const agentHref = (url: string): string => `#/agent?url=${encodeURIComponent(url)}`;

export function useMeshLocation(): MeshLocation {
  const [where, setWhere] = useState(read);
  useEffect(() => {
    const onHash = () => setWhere(read());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return where;
}

/** Polls `load` every `everyMs` while mounted; answers the last result or error. */
export function usePolled<T>(load: () => Promise<T>, everyMs: number, key: string): { data?: T; error?: string; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const run = () =>
      load().then(
        (data) => live && setState({ data }),
        (error: unknown) => live && setState((previous) => ({ ...previous, error: (error as Error).message })),
      );
    void run();
    const timer = setInterval(run, everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // `load` is a fresh closure per render; `key` and `tick` say when to restart.
  }, [key, tick, everyMs]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export const usd = (amount: number): string => `$${amount.toFixed(amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2)}`;
export const shortId = (id: string): string => (id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);
