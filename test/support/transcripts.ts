/**
 * Loads the frames recorded from a real VPP 26.06 (../shared/vpp-transcripts). Tests use them as
 * the oracle for the codec and the simulator.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface TranscriptFrame {
  readonly dir: 'request' | 'from_vpp';
  readonly msg_id: number;
  readonly name_crc: string;
  readonly hex: string;
  readonly retval?: number;
  readonly response?: number;
}

export interface Transcript {
  readonly file: string;
  readonly step: string;
  readonly frames: readonly TranscriptFrame[];
}

/** ../shared as laid beside the checkout (CI and developers), or VPPNET_SHARED_DIR. */
export function sharedDir(): string {
  return process.env.VPPNET_SHARED_DIR ?? path.resolve(process.cwd(), '../shared');
}

export function transcriptsAvailable(): boolean {
  return existsSync(path.join(sharedDir(), 'vpp-transcripts'));
}

export const SKIP_NO_SHARED = 'VPP transcripts not found: set VPPNET_SHARED_DIR to the shared/ folder';

export function loadTranscripts(set: '26.06' | '26.06-design'): Transcript[] {
  const dir = path.join(sharedDir(), 'vpp-transcripts', set);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const t = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
        step: string;
        frames: TranscriptFrame[];
      };
      return { file: `${set}/${f}`, step: t.step, frames: t.frames };
    });
}

export function payloadOf(frame: TranscriptFrame): Buffer {
  return Buffer.from(frame.hex, 'hex');
}
