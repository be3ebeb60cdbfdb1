import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM helper without declarations
import { findDuplicateModules } from '../duplicate-modules.mjs';
import { repoRoot } from './workspace.js';

const dist = (pkg: string, file: string): string => join(repoRoot, 'packages', pkg, 'dist', file);

/** The built file an export-map entry resolves to for `import` or `require` (read from package.json). */
function built(pkg: string, subpath: string, condition: 'import' | 'require'): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'packages', pkg, 'package.json'), 'utf8')) as {
    exports: Record<string, Record<string, { default: string }>>;
  };
  return join(repoRoot, 'packages', pkg, (manifest.exports[subpath] as Record<string, { default: string }>)[condition]!.default);
}

describe('duplicates gate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-dup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const writeEntry = (name: string, sources: string[]): void => {
    writeFileSync(join(dir, 'dist', name), '');
    writeFileSync(join(dir, 'dist', `${name}.map`), JSON.stringify({ version: 3, sources, mappings: '' }));
  };
  mkdirSync(join(dir, 'dist'));
  const manifest = { exports: { '.': { import: './dist/index.js' }, './sub': { import: './dist/sub.js' } } };

  it('reports a module that two entries both carry', () => {
    writeEntry('index.js', ['../src/index.ts', '../src/shared.ts', '../../node_modules/zod/index.js']);
    writeEntry('sub.js', ['../src/sub.ts', '../src/shared.ts', '../../node_modules/zod/index.js']);
    expect(findDuplicateModules(dir, manifest)).toEqual([{ module: 'src/shared.ts', entries: ['dist/index.js', 'dist/sub.js'] }]);
  });

  it('passes when shared modules live in a chunk', () => {
    writeEntry('index.js', ['../src/index.ts']);
    writeEntry('sub.js', ['../src/sub.ts']);
    expect(findDuplicateModules(dir, manifest)).toEqual([]);
  });
});

// Against the built packages (the gates run after `pnpm build`): one class per module across entries.
describe('built entries share their modules', () => {
  it('an error from errorFromV03 is an A2AError of the root entry (ESM and CJS)', async () => {
    const root = await import(pathToFileURL(built('a2a-types', '.', 'import')).href);
    const v03 = await import(pathToFileURL(built('a2a-types', './v0_3', 'import')).href);
    const error = v03.errorFromV03({ code: -32001, message: 'gone' });
    expect(error).toBeInstanceOf(root.A2AError);
    expect(error).toBeInstanceOf(root.TaskNotFoundError);
    const require = createRequire(import.meta.url);
    const cjsRoot = require(built('a2a-types', '.', 'require'));
    const cjsV03 = require(built('a2a-types', './v0_3', 'require'));
    expect(cjsV03.errorFromV03({ code: -32001 })).toBeInstanceOf(cjsRoot.A2AError);
  });

  it('/express answers a slow SSE consumer with the SlowConsumerError comment, not an error frame', async () => {
    const root = await import(pathToFileURL(dist('a2a-server-express', 'index.js')).href);
    const { a2aExpress } = await import(pathToFileURL(dist('a2a-server-express', 'express.js')).href);
    const chunk = 'x'.repeat(256 * 1024);
    const server = root.createA2AServer({
      card: {
        name: 'slow',
        description: 'd',
        version: '1',
        capabilities: { streaming: true },
        supportedInterfaces: [{ url: 'http://127.0.0.1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      },
      subscriberBufferSize: 4,
      executor: {
        async execute(context: unknown, events: unknown) {
          const task = root.createTaskUpdater(context, events);
          task.submit();
          task.startWork();
          // Far more than the socket buffers while the client is not reading: the queue of 4 overflows.
          for (let i = 0; i < 40; i++) task.addArtifact([{ text: chunk }], { artifactId: `a${i}` });
          task.complete('done');
        },
      },
    });
    const middleware = a2aExpress(server);
    const http = createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/a2a/rest/message:stream',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          },
          (res) => {
            res.pause();
            setTimeout(() => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (data: string) => {
                text += data;
              });
              res.on('end', () => resolve(text));
              res.resume();
            }, 300);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } }));
      });
      const comments = body.split('\n').filter((line) => line.startsWith(': ') && line !== ': heartbeat');
      expect(comments.length).toBe(1);
      expect(comments[0]).toMatch(/resubscribe with Last-Event-ID/);
      expect(body).not.toMatch(/"code":500|-32603|INTERNAL/);
    } finally {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});

describe('dead-exports gate', () => {
  it('reports an export nothing publishes or imports, and only that one', async () => {
    // @ts-expect-error -- plain ESM helper without declarations
    const { findDeadExports } = await import('../dead-exports.mjs');
    const dir = mkdtempSync(join(tmpdir(), 'a2a-dead-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'index.ts'), "export { published } from './a.js';\n");
      writeFileSync(
        join(dir, 'src', 'a.ts'),
        "import { helper } from './b.js';\nexport const published = () => helper();\nexport const forgotten = 1;\n",
      );
      writeFileSync(join(dir, 'src', 'b.ts'), 'export const helper = () => 2;\nexport type Unused = string;\n');
      const manifest = { exports: { '.': { '@a2aplane/source': './src/index.ts' } } };
      expect(findDeadExports(dir, manifest)).toEqual(['src/a.ts: forgotten', 'src/b.ts: Unused']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000); // analyses a whole scratch workspace: slow while every suite runs at once
});
