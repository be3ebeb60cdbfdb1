/**
 * Extensions an executor activated for one request (spec §3.2, the extensions topic: the server
 * SHOULD echo them in the `A2A-Extensions` response header / metadata). The set is kept by the
 * identity of the caller's `extensions` list (what the executor context holds) and of the request
 * (what a binding holds), so no signature between the two has to carry it.
 */
const byRequested = new WeakMap<readonly string[], Set<string>>();
const byRequest = new WeakMap<object, Set<string>>();

/** Starts tracking activations of `requested` (the caller's extensions) for `request`. */
export function trackActivations(request: object, requested: readonly string[]): void {
  // Nothing requested, nothing to activate: most requests skip the two weak-map entries.
  if (requested.length === 0) return;
  const activated = new Set<string>();
  byRequested.set(requested, activated);
  byRequest.set(request, activated);
}

/** Marks `uri` active when the caller requested it; false (nothing echoed) otherwise. */
export function activateExtension(requested: readonly string[], uri: string): boolean {
  const activated = byRequested.get(requested);
  if (activated === undefined || !requested.includes(uri)) return false;
  activated.add(uri);
  return true;
}

/** The extensions activated so far for `request`, in activation order. */
export function activatedExtensions(request: object): readonly string[] {
  const activated = byRequest.get(request);
  return activated === undefined || activated.size === 0 ? [] : [...activated];
}
