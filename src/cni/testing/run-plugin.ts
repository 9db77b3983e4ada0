/**
 * One in-process plugin invocation with captured output, for tests: the same runCni the executable
 * uses, with the environment and stdin given explicitly instead of the process's own.
 */
import { runCni, type CniEnv, type CniHandlers, type TextSink } from '../skel.js';
import { SUPPORTED_CNI_VERSIONS } from '../version.js';

export interface PluginRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout decoded, or undefined when it was empty. */
  readonly output: Record<string, unknown> | undefined;
}

export async function runPlugin(
  handlers: CniHandlers,
  env: CniEnv,
  stdin: string | object,
  supportedVersions: readonly string[] = SUPPORTED_CNI_VERSIONS,
): Promise<PluginRun> {
  const stdout = new StringSink();
  const stderr = new StringSink();
  const exitCode = await runCni(
    { env, stdin: typeof stdin === 'string' ? stdin : JSON.stringify(stdin), stdout, stderr },
    handlers,
    supportedVersions,
  );
  const text = stdout.text;
  return {
    exitCode,
    stdout: text,
    stderr: stderr.text,
    output: text.trim() === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

class StringSink implements TextSink {
  #text = '';
  write(chunk: string): boolean {
    this.#text += chunk;
    return true;
  }
  get text(): string {
    return this.#text;
  }
}
