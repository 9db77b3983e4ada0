/**
 * `npm run deploy:render`: renders deploy/values into deploy/manifests (or checks that the
 * committed manifests are what the values give, with --check).
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OutputDirError, compareWithDirectory, writeDirectory } from './output-dir.js';
import {
  BASE_OVERLAY,
  MANIFESTS_DIR,
  VALUES_DIR,
  overlayNames,
  overlayPlaceholders,
  renderOverlay,
  renderSiteValuesFile,
} from './overlays.js';
import { ValuesError } from './values.js';

const USAGE = `usage:
  npm run deploy:render -- [--check] [OVERLAY...]
      renders deploy/values/default.yaml (+ deploy/values/OVERLAY.yaml) into deploy/manifests/OVERLAY/;
      all overlays when none is named; --check compares instead of writing (exit 1 on a difference)
  npm run deploy:render -- --values FILE --out DIR [--check]
      renders default.yaml with FILE merged over it into DIR (a site's own overlay)`;

function main(argv: readonly string[]): number {
  const { values: flags, positionals } = parseArgs({
    args: [...argv],
    options: {
      check: { type: 'boolean', default: false },
      values: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const jobs: {
    label: string;
    dir: string;
    render: () => Map<string, string>;
    /** A repository overlay's placeholders, said after writing: its manifests are examples. */
    placeholders?: () => string[];
  }[] = [];
  if (flags.values !== undefined || flags.out !== undefined) {
    if (flags.values === undefined || flags.out === undefined || positionals.length > 0) {
      process.stderr.write(
        `deploy:render: --values and --out go together, without overlay names\n${USAGE}\n`,
      );
      return 2;
    }
    const valuesFile = resolve(flags.values);
    // A mistyped path is a usage error: one line naming it, not a stack trace.
    const stat = statSync(valuesFile, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) {
      const why = stat === undefined ? 'no such file' : 'not a file';
      process.stderr.write(`deploy:render: --values ${flags.values}: ${why}\n`);
      return 2;
    }
    jobs.push({
      label: flags.values,
      dir: resolve(flags.out),
      render: () => renderSiteValuesFile(join(VALUES_DIR, `${BASE_OVERLAY}.yaml`), valuesFile),
    });
  } else {
    const known = overlayNames();
    for (const name of positionals.length > 0 ? positionals : known) {
      if (!known.includes(name)) {
        process.stderr.write(`deploy:render: no overlay ${name} (known: ${known.join(', ')})\n`);
        return 2;
      }
      jobs.push({
        label: name,
        dir: join(MANIFESTS_DIR, name),
        render: () => renderOverlay(name),
        placeholders: () => overlayPlaceholders(name),
      });
    }
  }

  let failed = false;
  for (const job of jobs) {
    let files: Map<string, string>;
    try {
      files = job.render();
    } catch (err) {
      if (!(err instanceof ValuesError)) throw err;
      process.stderr.write(`deploy:render: ${job.label}: ${err.message}\n`);
      failed = true;
      continue;
    }
    if (flags.check) {
      const diffs = compareWithDirectory(files, job.dir);
      for (const d of diffs) process.stderr.write(`deploy:render --check: ${d}\n`);
      if (diffs.length > 0) failed = true;
      else process.stdout.write(`${job.label}: ${job.dir} is up to date (${files.size} files)\n`);
    } else {
      try {
        writeDirectory(files, job.dir);
      } catch (err) {
        if (!(err instanceof OutputDirError)) throw err;
        process.stderr.write(`deploy:render: ${job.label}: ${err.message}\n`);
        failed = true;
        continue;
      }
      const placeholders = job.placeholders?.() ?? [];
      const note =
        placeholders.length > 0
          ? ` (an example: placeholders in ${placeholders.join(', ')}; a site renders its own values with --values)`
          : '';
      process.stdout.write(`${job.label}: wrote ${files.size} files to ${job.dir}${note}\n`);
    }
  }
  if (failed && flags.check)
    process.stderr.write('deploy:render --check: run `npm run deploy:render` and commit the result\n');
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
