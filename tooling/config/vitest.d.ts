import type { UserConfig } from 'vitest/config';
export interface PackageTestOptions {
  testTimeout?: number;
  include?: string[];
  /** Resolve without the `module` condition, as Node does (packages that load OpenTelemetry). */
  nodeResolution?: boolean;
}
export declare function definePackageTestConfig(options?: PackageTestOptions): UserConfig;
