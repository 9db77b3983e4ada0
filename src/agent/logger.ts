/**
 * The logging surface the agent's parts write to: structured fields first, then a message, as pino
 * does. Depending on this instead of pino itself lets tests record what was logged and keeps the
 * library choice in main.ts.
 */
export interface AgentLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

const ignore = (): void => undefined;

export const silentLogger: AgentLogger = { error: ignore, warn: ignore, info: ignore, debug: ignore };

/** The message of anything thrown, for log fields and status JSON. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
