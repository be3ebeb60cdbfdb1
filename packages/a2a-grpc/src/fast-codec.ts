// The lean ProtoJSON <-> binary codec of the hot A2A messages (codec.ts falls back to protobuf-es
// on `Unsupported`): the shared plan, the encoder and the decoder, one module each.
export { Unsupported } from './fast-codec-plan.js';
export { fastDecode } from './fast-decode.js';
export { fastEncode } from './fast-encode.js';
