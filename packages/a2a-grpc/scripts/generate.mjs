#!/usr/bin/env node
// Generates the protobuf-es code of proto/a2a.proto (and google.rpc Status/ErrorInfo/BadRequest)
// into src/gen, offline: buf compiles, protoc-gen-es generates, google/api and google/rpc imports
// come from google-proto-files, the well-known types (google/protobuf/*) ship with buf.
// Usage: node scripts/generate.mjs [outDir]   (default src/gen; the staleness test passes a temp dir)
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(pkg, 'src', 'gen'));
const require = createRequire(join(pkg, 'package.json'));
const googleProtos = dirname(require.resolve('google-proto-files/package.json'));
const bin = (name) => join(pkg, 'node_modules', '.bin', name);

/** The files we need; their imports (except the well-known types) are copied and generated too. */
const ROOTS = ['a2a.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'];

const work = mkdtempSync(join(tmpdir(), 'a2a-grpc-gen-'));
try {
  const src = join(work, 'proto');
  const seen = new Set();
  const copy = (file) => {
    if (seen.has(file) || file.startsWith('google/protobuf/')) return;
    seen.add(file);
    const from = file === 'a2a.proto' ? join(pkg, 'proto', 'a2a.proto') : join(googleProtos, file);
    mkdirSync(dirname(join(src, file)), { recursive: true });
    cpSync(from, join(src, file));
    for (const match of readFileSync(from, 'utf8').matchAll(/^import\s+(?:public\s+)?"([^"]+)";/gm)) copy(match[1]);
  };
  for (const root of ROOTS) copy(root);
  writeFileSync(join(src, 'buf.yaml'), 'version: v2\n');
  const template = {
    version: 'v2',
    plugins: [{ local: bin('protoc-gen-es'), out: join(work, 'out'), opt: ['target=ts', 'import_extension=js'] }],
  };
  writeFileSync(join(work, 'buf.gen.yaml'), JSON.stringify(template));
  execFileSync(
    bin('buf'),
    ['generate', src, '--template', join(work, 'buf.gen.yaml'), ...[...seen].flatMap((file) => ['--path', join(src, file)])],
    {
      cwd: work,
      stdio: 'inherit',
    },
  );
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(dirname(outDir), { recursive: true });
  cpSync(join(work, 'out'), outDir, { recursive: true });
} finally {
  rmSync(work, { recursive: true, force: true });
}
