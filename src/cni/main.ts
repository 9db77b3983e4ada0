#!/usr/bin/env node
// vppnet-cni: the executable a runtime (or Multus) runs. Everything lives in runCni; only here does
// the process meet its real environment and streams. A terminal on stdin (someone typing
// `CNI_COMMAND=VERSION vppnet-cni`) is treated as empty input instead of waiting for EOF.
//
// No top-level await: scripts/build-cni-sea.mjs bundles this file into CommonJS for the single
// executable (Node's SEA runs CommonJS only), and CommonJS has none. runCni never rejects.
import { createPlugin } from './plugin.js';
import { runCni } from './skel.js';
import { SUPPORTED_CNI_VERSIONS } from './version.js';
import { versionLine } from '../util/version.js';

// `vppnet-cni --version` for a person: runtimes pass no arguments and set CNI_COMMAND (whose
// VERSION is the spec's own answer), so only a bare invocation with that one flag is taken.
if (process.argv[2] === '--version' && process.argv.length === 3 && !process.env.CNI_COMMAND) {
  process.stdout.write(`${versionLine('vppnet-cni')}\n`);
} else {
  void runCni(
    {
      env: process.env,
      stdin: process.stdin.isTTY ? '' : process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    },
    createPlugin(),
    SUPPORTED_CNI_VERSIONS,
  ).then((code) => {
    process.exitCode = code;
  });
}
