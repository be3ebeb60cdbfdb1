/** The v0.3 translators of a2a-types. */
export type V03Translators = typeof import('@a2aplane/a2a-types/v0_3');

/** Loads the v0.3 translators; `v0_3` from `@a2aplane/a2a-client/v0_3` is the stock one. */
export interface V03Support {
  load(): Promise<V03Translators>;
}

const loaded = new WeakMap<V03Support, Promise<V03Translators>>();

/** Loads once per support object; a failed load is tried again next time. */
export function loadV03Translators(support: V03Support): Promise<V03Translators> {
  let loading = loaded.get(support);
  if (!loading) {
    loading = support.load();
    loaded.set(support, loading);
    loading.catch(() => loaded.delete(support));
  }
  return loading;
}
