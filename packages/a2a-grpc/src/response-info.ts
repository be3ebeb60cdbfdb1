import { splitExtensionList } from '@a2aplane/a2a-types';
import type { Metadata } from '@grpc/grpc-js';
import { A2A_EXTENSIONS_METADATA_KEY, metadataTexts } from './metadata.js';
import type { GrpcTransportCallOptions } from './transport-options.js';

/** What the response metadata says besides the result: the extensions the agent activated. */
export function responseInfoOf(metadata: Metadata | undefined): { activatedExtensions: readonly string[] } {
  return { activatedExtensions: metadata ? splitExtensionList(metadataTexts(metadata, A2A_EXTENSIONS_METADATA_KEY)) : [] };
}

/** Calls `onResponse` for an opened stream; its error runs `abandon` (the stream is cancelled) and fails the call. */
export function reportOpened(options: GrpcTransportCallOptions, metadata: Metadata | undefined, abandon: () => void): void {
  try {
    options.onResponse?.(responseInfoOf(metadata));
  } catch (error) {
    abandon();
    throw error;
  }
}
