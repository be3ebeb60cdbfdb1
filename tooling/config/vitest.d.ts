import type { UserConfig } from 'vitest/config';
export interface PackageTestOptions {
  testTimeout?: number;
  include?: string[];
}
export declare function definePackageTestConfig(options?: PackageTestOptions): UserConfig;
