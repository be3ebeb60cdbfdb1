// The bundle gate's measurement of `{ createA2AClient }` (tooling/gates/client-size.mjs, plain ESM without declarations).
declare module '@a2aplane/gates/client-size.mjs' {
  export function measureClientSizes(root: string): Promise<{ initial: number; oneFile: number; loaded: number }>;
}
