import type { Options } from 'tsup';
export interface PackageBuildOptions {
  entry?: Record<string, string> | string[];
  platform?: 'neutral' | 'node' | 'browser';
  external?: string[];
}
export declare function definePackageConfig(options?: PackageBuildOptions): Options | Options[];
