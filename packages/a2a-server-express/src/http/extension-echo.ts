import type { ServerResponse } from 'node:http';
import { A2A_EXTENSIONS_HEADER } from '@a2aplane/a2a-types';
import { activatedExtensions } from '../core/extension-activation.js';

/**
 * Echoes the extensions the executor activated for `request` in the `A2A-Extensions` response
 * header (spec §3.2), passing `response` through. A stream's head is written with its first event: what was activated by then.
 */
export function echoActivatedExtensions<T>(res: ServerResponse, request: object, response: T): T {
  const activated = activatedExtensions(request);
  if (activated.length > 0 && !res.headersSent) res.setHeader(A2A_EXTENSIONS_HEADER, activated.join(', '));
  return response;
}
