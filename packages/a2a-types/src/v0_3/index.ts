// v0.3 compatibility entry point: filled in by the v0.3 translators.
export const V0_3_PROTOCOL_VERSION = '0.3';
