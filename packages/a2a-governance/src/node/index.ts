/// <reference types="node" />
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type ConfigFormat, ConfigError, type OperatorConfig } from '../config.js';
import { parseOperatorConfig } from '../config-files/index.js';

const FORMATS: Record<string, ConfigFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml', '.toml': 'toml' };

/**
 * Loads an operator config file at startup. The format follows the extension (.json, .yaml,
 * .yml, .toml). Throws `ConfigError` listing every violation, or when the file cannot be read.
 */
export async function loadOperatorConfigFile(path: string): Promise<OperatorConfig> {
  if (typeof path !== 'string' || path === '') throw new TypeError(`expected path to be a non-empty string, got ${typeof path}`);
  const format = FORMATS[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new ConfigError([{ field: '', description: `cannot tell the format of ${path}; expected .json, .yaml, .yml or .toml` }]);
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([{ field: '', description: `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  const result = parseOperatorConfig(text, format);
  if (!result.ok)
    throw new ConfigError(
      result.violations,
      `invalid operator config ${path}: ${result.violations.map((v) => (v.field ? `${v.field}: ${v.description}` : v.description)).join('; ')}`,
    );
  return result.config;
}
