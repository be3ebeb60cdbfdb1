import { parse as parseToml } from 'smol-toml';
import { parseDocument } from 'yaml';
import { type ConfigFormat, type OperatorConfigResult, validateOperatorConfig } from '../config.js';

export type { ConfigFormat, OperatorConfigResult } from '../config.js';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Parses an operator config from JSON, YAML or TOML text. Never throws: syntax errors and schema
 * errors become violations. The YAML and TOML parsers live behind this entry so that the root
 * entry (schemas, merge, gates) stays small in the browser.
 */
export function parseOperatorConfig(text: string, format: ConfigFormat): OperatorConfigResult {
  if (typeof text !== 'string') return { ok: false, violations: [{ field: '', description: `expected text, got ${typeof text}` }] };
  let raw: unknown;
  try {
    if (format === 'json') raw = JSON.parse(text);
    else if (format === 'toml') raw = parseToml(text);
    else if (format === 'yaml') {
      const document = parseDocument(text, { uniqueKeys: true });
      const errors = document.errors;
      if (errors.length > 0) {
        return { ok: false, violations: errors.map((error) => ({ field: '', description: `invalid YAML: ${error.message}` })) };
      }
      raw = document.toJS();
    } else {
      return {
        ok: false,
        violations: [{ field: '', description: `unknown config format ${String(format)}; expected json, yaml or toml` }],
      };
    }
  } catch (error) {
    return { ok: false, violations: [{ field: '', description: `invalid ${format.toUpperCase()}: ${message(error)}` }] };
  }
  // An empty YAML document is an empty config.
  return validateOperatorConfig(raw);
}
