import type { A2AError } from './a2a-error.js';
import { A2A_ERROR_BRAND } from './brand.js';

/**
 * `A2AError.isInstance(value)` without the class: code that only tells agent errors apart (a
 * client's retry and timeout paths) need not bundle the classes and their code table.
 */
export const isA2AError = (value: unknown): value is A2AError => A2A_ERROR_BRAND.is(value);
