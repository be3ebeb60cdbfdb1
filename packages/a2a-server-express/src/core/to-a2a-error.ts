import { A2AError, InternalError } from '@a2aplane/a2a-types';

/** Normalises an unknown thrown value into a wire error that leaks nothing. */
export function toA2AError(error: unknown): A2AError {
  if (A2AError.isInstance(error)) return error as A2AError;
  return new InternalError();
}
