/** Sends every prebuilt request over keep-alive connections to 127.0.0.1:`port`; resolves when all are answered with 200. */
export declare function driveKeepAlive(
  port: number,
  requests: readonly Buffer[],
  options?: { sockets?: number; expectResult?: boolean },
): Promise<void>;
