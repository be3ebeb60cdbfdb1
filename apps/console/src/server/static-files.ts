import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The page's security headers: no framing, no sniffing, scripts and styles from the console only. */
const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src *; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/**
 * Serves the production build in `root`: `/` and unknown paths without an extension get
 * `index.html` with the session token written in (hash routing keeps deep links on `/`), hashed
 * `/assets/*` are cached for good. Paths that leave `root` are refused.
 */
export function createStaticFiles(root: string, sessionToken: string) {
  let indexHtml: string | undefined;
  const loadIndex = async (): Promise<string> => {
    indexHtml ??= (await readFile(join(root, 'index.html'), 'utf8')).replace(
      '<meta name="a2a-console-token" content="">',
      `<meta name="a2a-console-token" content="${sessionToken}">`,
    );
    return indexHtml;
  };

  return async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const ext = extname(pathname);
    if (pathname === '/' || ext === '') {
      let html: string;
      try {
        html = await loadIndex();
      } catch {
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end('the console UI is not built: run `pnpm --filter @a2aplane/a2a-console build`');
        return;
      }
      res.writeHead(200, { ...PAGE_HEADERS, 'content-type': TYPES['.html'], 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      res.writeHead(404).end();
      return;
    }
    const file = normalize(join(root, decoded));
    if (!file.startsWith(root + sep) || !(ext in TYPES)) {
      res.writeHead(404).end();
      return;
    }
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    const cache = pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    res.writeHead(200, { ...PAGE_HEADERS, 'content-type': TYPES[ext] as string, 'content-length': body.length, 'cache-control': cache });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
