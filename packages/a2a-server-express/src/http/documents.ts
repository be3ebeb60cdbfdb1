import { MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';
import { agentCardToV03 } from '@a2aplane/a2a-types/v0_3';
import { etagOf, type PreparedCard, prepareAgentCard } from '../card/agent-card.js';
import type { A2AServer } from '../core/server.js';
import { utf8Encode } from '../encoding/base64url.js';
import { httpDate, isNotModified } from './conditional-get.js';
import type { HttpExchange, Reply } from './exchange.js';
import type { HttpHandlerOptions } from './options.js';

/** Bytes served as they are, with their ETag and media type (the card, the legacy card, the JWKS). */
interface ServedDocument {
  body: Uint8Array;
  etag: string;
  contentType: string;
  /** `Last-Modified`: when the bytes were made (the documents of a handler never change after). */
  lastModified: string;
}

function checkJwks(jwks: { keys: readonly object[] }): void {
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray(jwks.keys)) {
    throw new TypeError(`expected jwks to be a JWKS document ({ keys: [...] }), got ${jwks === null ? 'null' : typeof jwks}`);
  }
  if (jwks.keys.some((key) => typeof key !== 'object' || key === null || 'd' in key)) {
    // A private JWK carries `d`: never publish one.
    throw new TypeError('expected jwks.keys to hold public JWK objects only, got an entry that is not one (or has a private "d")');
  }
}

async function serialize(body: Uint8Array, contentType: string, etagPrefix?: string): Promise<ServedDocument> {
  return { body, etag: await etagOf(body, etagPrefix), contentType, lastModified: httpDate(Date.now()) };
}

/** The documents of one handler: the card (signed once), its v0.3 shape and the JWKS, each made on first need. */
interface Documents {
  card(legacy: boolean): Promise<ServedDocument>;
  jwks(): Promise<ServedDocument>;
}

export function createDocuments(server: A2AServer, options: HttpHandlerOptions): Documents {
  const jwks = options.jwks;
  // A bad JWKS is a configuration error when the handler is created, not on the first request.
  if (jwks !== undefined) checkJwks(jwks);
  let prepared: Promise<PreparedCard> | undefined;
  let cardMadeAt: string | undefined;
  let legacy: Promise<ServedDocument> | undefined;
  let jwksDocument: Promise<ServedDocument> | undefined;
  const card = (): Promise<PreparedCard> => {
    prepared ??= prepareAgentCard(server.card, options.cardSigner).then((made) => {
      cardMadeAt = httpDate(Date.now());
      return made;
    });
    return prepared;
  };
  // Sign once, at startup; a failure surfaces as a 500 on the card request, not as an unhandled rejection.
  void card().catch(() => undefined);
  return {
    async card(wantLegacy) {
      if (!wantLegacy) {
        const { body, etag } = await card();
        return { body, etag, contentType: MEDIA_TYPE_JSON, lastModified: cardMadeAt ?? httpDate(Date.now()) };
      }
      legacy ??= Promise.resolve(server.card).then((value) =>
        serialize(utf8Encode(JSON.stringify(agentCardToV03(value))), MEDIA_TYPE_JSON, 'v03-'),
      );
      return legacy;
    },
    jwks() {
      jwksDocument ??= serialize(utf8Encode(JSON.stringify({ keys: jwks?.keys ?? [] })), 'application/jwk-set+json');
      return jwksDocument;
    },
  };
}

/** GET or HEAD of a cacheable document, with `If-None-Match` / `If-Modified-Since` revalidation; other verbs get 405. */
export function documentReply(exchange: HttpExchange, document: ServedDocument, maxAgeSeconds: number): Reply {
  const method = exchange.method;
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'bytes', status: 405, headers: { allow: 'GET, HEAD' } };
  const headers: Record<string, string> = {
    etag: document.etag,
    'last-modified': document.lastModified,
    'cache-control': `public, max-age=${maxAgeSeconds}`,
    'access-control-allow-origin': '*',
  };
  if (isNotModified(exchange.header('if-none-match'), exchange.header('if-modified-since'), document.etag, document.lastModified)) {
    return { kind: 'bytes', status: 304, headers };
  }
  headers['content-type'] = document.contentType;
  headers['content-length'] = String(document.body.length);
  return { kind: 'bytes', status: 200, headers, body: method === 'HEAD' ? undefined : document.body };
}
