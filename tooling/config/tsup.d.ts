import type { Options } from 'tsup';
export interface PackageBuildOptions {
  entry?: Record<string, string>;
  platform?: 'neutral' | 'node' | 'browser';
  external?: string[];
  /** Dependencies to inline into the build instead of importing them at run time. */
  noExternal?: string[];
  /** Ship ESM as one module per source file (tree-shakeable by module); CJS stays bundled. */
  modules?: boolean;
}
export declare function definePackageConfig(options?: PackageBuildOptions): Options | Options[];
