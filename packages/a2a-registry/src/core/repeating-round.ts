/**
 * Runs `round` at once on `start`, then `intervalMs` after each round ends (rounds never overlap), until `stop`,
 * which waits for a round in progress. The timer never keeps a process alive on its own.
 */
export function createRepeatingRound(
  round: () => Promise<unknown>,
  intervalMs: number,
  onError: ((error: unknown) => void) | undefined,
): { start(): void; stop(): Promise<void> } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  const run = (): void => {
    running = round()
      .catch((error: unknown) => onError?.(error))
      .finally(schedule);
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(run, intervalMs);
    timer.unref?.();
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      run();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
