/**
 * The benchmark's two waits on the outside world: a step with a deadline (a step that never ends
 * is a bug to report, not a slow run to wait for), and an agent's readiness as its /readyz says.
 */
import type { AgentProcess } from './processes.js';

/** Wall-clock ms, as the simulators' steering mirror stamps its replies. */
export const now = (): number => performance.timeOrigin + performance.now();

/** `p`, or a rejection naming `what` once `ms` have passed. */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Resolves once an agent answers /readyz with 200 (converged with its VPP), or rejects if it exits.
 * Asked every `everyMs`: finer where the moment it turns ready is the measurement.
 */
export async function readyz(port: number, agent: AgentProcess, everyMs = 100): Promise<void> {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await Promise.race([new Promise((resolve) => setTimeout(resolve, everyMs)), agent.exited]);
  }
}
