// Checks the package graph drawn in docs/architecture.md against the package.json files: the
// ```text package-graph block lists every published package once as
// `name -> dep, dep; optional dep` (workspace dependencies and peer dependencies; devDependencies
// are not part of the graph). A line ending in `(planned)` names a package that does not exist yet,
// and must go once it does (then its real line is checked like the others).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repositoryRoot = join(here, '..', '..');
const SCOPE = '@a2aplane/';
const IGNORED = new Set(['@a2aplane/tooling']);

/** The graph block of a markdown text: name -> { requires, optional, planned }. */
export function parseGraphBlock(markdown) {
  const match = /```text package-graph\n([\s\S]*?)```/.exec(markdown);
  if (!match) return { graph: undefined, errors: ['no ```text package-graph block'] };
  const graph = new Map();
  const errors = [];
  for (const raw of match[1].split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const planned = line.endsWith('(planned)');
    const body = planned ? line.slice(0, -'(planned)'.length).trim() : line;
    const [name, edges = ''] = body.split('->').map((part) => part.trim());
    if (!/^[a-z0-9-]+$/.test(name)) {
      errors.push(`cannot read the line "${line}"`);
      continue;
    }
    if (graph.has(name)) errors.push(`${name} is listed twice`);
    const [required = '', optional = ''] = edges.split(';').map((part) => part.trim());
    const list = (text) =>
      text
        .replace(/^optional\b/, '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    if (optional !== '' && !optional.startsWith('optional')) errors.push(`${name}: expected "; optional ..." after the dependencies`);
    graph.set(name, { requires: list(required).sort(), optional: list(optional).sort(), planned });
  }
  return { graph, errors };
}

/** The workspace's published packages as the same shape, read from their package.json. */
export function workspaceGraph(root = repositoryRoot) {
  const graph = new Map();
  const dir = join(root, 'packages');
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (manifest.private) continue;
    const internal = (deps) => Object.keys(deps ?? {}).filter((dep) => dep.startsWith(SCOPE) && !IGNORED.has(dep));
    const optionalPeers = new Set(internal(manifest.peerDependencies).filter((dep) => manifest.peerDependenciesMeta?.[dep]?.optional));
    const requires = [...internal(manifest.dependencies), ...internal(manifest.peerDependencies).filter((dep) => !optionalPeers.has(dep))];
    const short = (dep) => dep.slice(SCOPE.length);
    graph.set(short(manifest.name), {
      requires: requires.map(short).sort(),
      optional: [...optionalPeers].map(short).sort(),
      planned: false,
    });
  }
  return graph;
}

/** Every difference between the drawn graph and the package.json files; empty when they agree. */
export function comparePackageGraphs(drawn, actual) {
  const errors = [];
  for (const [name, real] of actual) {
    const line = drawn.get(name);
    if (line === undefined) {
      errors.push(`${name} is missing from the graph`);
      continue;
    }
    if (line.planned) errors.push(`${name} exists now: replace its (planned) line with its dependencies`);
    for (const kind of ['requires', 'optional']) {
      const want = real[kind].join(', ');
      const have = line[kind].join(', ');
      if (want !== have) errors.push(`${name}: the graph says ${kind} [${have}], package.json says [${want}]`);
    }
  }
  for (const [name, line] of drawn) {
    if (!actual.has(name) && !line.planned) errors.push(`${name} is in the graph but not in packages/ (mark it (planned) or remove it)`);
  }
  return errors;
}

/** The package.json files of the workspace folders (`packages/*`, `apps/*`, `tooling/*`). */
function workspaceManifests(root) {
  const manifests = [];
  for (const folder of ['packages', 'apps', 'tooling']) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name, 'package.json');
      if (existsSync(file)) manifests.push(JSON.parse(readFileSync(file, 'utf8')));
    }
  }
  return manifests;
}

/**
 * A private workspace package (`@a2aplane/test-utils`, `@a2aplane/tooling`, ...) is never shipped:
 * a published package may name one in `devDependencies` only, never in what its users install.
 */
export function privateDependencyErrors(manifests) {
  const privateNames = new Set(manifests.filter((m) => m.private).map((m) => m.name));
  const errors = [];
  for (const manifest of manifests) {
    if (manifest.private) continue;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const dep of Object.keys(manifest[field] ?? {})) {
        if (privateNames.has(dep)) errors.push(`${manifest.name}: private package ${dep} in ${field} (devDependencies only)`);
      }
    }
  }
  return errors;
}

/** The gate: docs/architecture.md's graph against the workspace, and no private package shipped. */
export function checkPackageGraph(root = repositoryRoot) {
  const { graph, errors } = parseGraphBlock(readFileSync(join(root, 'docs', 'architecture.md'), 'utf8'));
  const shipped = privateDependencyErrors(workspaceManifests(root));
  if (graph === undefined) return [...errors, ...shipped];
  return [...errors, ...comparePackageGraphs(graph, workspaceGraph(root)), ...shipped];
}
