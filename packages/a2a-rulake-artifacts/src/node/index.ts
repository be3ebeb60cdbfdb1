export { createFileSystemWitnessStore } from './fs-witness-store.js';
export type { FileSystemWitnessStoreOptions } from './fs-witness-store.js';
export { createNodeWitnessHasher } from './node-witness-hasher.js';
