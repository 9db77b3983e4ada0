/**
 * No Docker engine runs here or in CI, so the Dockerfile is checked by reading it: the paths the
 * DaemonSet runs exist in the image, the stages are the ones deploy/README.md describes, and the
 * hadolint rules that matter for this file hold (apt hygiene, no ADD, tagged bases, no :latest).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { IMAGE } from '../../deploy/render/contract.js';
import { REPO_ROOT } from '../../deploy/render/overlays.js';

interface Instruction {
  readonly op: string;
  readonly args: string;
  readonly line: number;
}

interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** Instructions with continuation lines joined and comments dropped (parser directives included). */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (line.startsWith('#')) return; // a comment inside a continued instruction
    if (pending === '') start = i + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s*(.*)$/.exec(full);
    if (m) out.push({ op: (m[1] ?? '').toUpperCase(), args: m[2] ?? '', line: start });
  });
  return out;
}

function stages(all: readonly Instruction[]): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const result: Stage[] = [];
  for (const ins of all) {
    if (ins.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      assert.ok(m, `line ${ins.line}: FROM ${ins.args}`);
      const image = (m[1] ?? '').replace(
        /\$\{(\w+)\}/g,
        (_, name: string) => args.get(name) ?? `\${${name}}`,
      );
      result.push({ image, name: m[2], instructions: [] });
    } else if (result.length === 0 && ins.op === 'ARG') {
      const [name, value] = ins.args.split('=');
      if (name !== undefined && value !== undefined) args.set(name, value);
    } else {
      result.at(-1)?.instructions.push(ins);
    }
  }
  return { args, stages: result };
}

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
const all = instructions(dockerfile);
const { stages: parsed } = stages(all);
const build = parsed.find((s) => s.name === 'build');
const runtime = parsed.at(-1);
const runs = (s: Stage | undefined) =>
  (s?.instructions ?? []).filter((i) => i.op === 'RUN').map((i) => i.args);

describe('Dockerfile', () => {
  it('builds on node:20-bookworm and ships on node:20-bookworm-slim', () => {
    assert.equal(build?.image, 'node:20-bookworm');
    assert.equal(runtime?.image, 'node:20-bookworm-slim');
    assert.equal(runtime?.name, 'runtime');
  });

  it('builds with npm ci, npm run build and npm run build:cni-sea', () => {
    const text = runs(build).join('\n');
    assert.match(text, /\bnpm ci\b/);
    assert.match(text, /\bnpm run build\b/);
    assert.match(text, /\bnpm run build:cni-sea\b/);
  });

  it('puts the CNI binary and the commands where the DaemonSet expects them', () => {
    const copies = runtime?.instructions.filter((i) => i.op === 'COPY').map((i) => i.args) ?? [];
    assert.ok(
      copies.some((c) => c.endsWith(` ${IMAGE.cniBinary}`)),
      `a COPY to ${IMAGE.cniBinary}`,
    );
    const setup = runs(runtime).join('\n');
    for (const command of [IMAGE.agentCommand, IMAGE.cliCommand]) {
      assert.match(setup, new RegExp(`ln -s \\S+ /usr/local/bin/${command}(\\s|$)`), `${command} on PATH`);
    }
    assert.match(setup, /apt-get install[^\n]*\biproute2\b[^\n]*\butil-linux\b/);
    // nft: a veth's host end without its ingress chain is refused (src/netns/host-end.ts).
    assert.match(setup, /apt-get install[^\n]*\bnftables\b/);
    assert.deepEqual(
      runtime?.instructions.filter((i) => i.op === 'ENTRYPOINT').map((i) => i.args),
      [JSON.stringify([IMAGE.agentCommand])],
    );
  });

  it('runs the agent from its bundle, which it copies, and no .proto file', () => {
    const setup = runs(runtime).join('\n');
    assert.match(
      setup,
      new RegExp(`ln -s \\S+/dist/bundle/vppnet-agent\\.js /usr/local/bin/${IMAGE.agentCommand}(\\s|$)`),
    );
    const copies = runtime?.instructions.filter((i) => i.op === 'COPY').map((i) => i.args) ?? [];
    assert.ok(copies.includes('--from=build /src/dist/bundle ./dist/bundle'), 'dist/bundle copied');
    // The etcd client loads a generated descriptor (src/datastore/etcd/generated/json-descriptor.ts).
    assert.ok(!copies.some((c) => /\.proto\b|etcd\/proto/.test(c)), 'no protos copied');
  });

  it('runs as root on purpose (no USER), and says why', () => {
    assert.equal(all.filter((i) => i.op === 'USER').length, 0);
    assert.match(dockerfile, /runs as root, on purpose/);
  });

  it('copies only from stages it defines, after defining them', () => {
    const seen = new Set<string>();
    for (const stage of parsed) {
      for (const ins of stage.instructions) {
        const from = /--from=(\S+)/.exec(ins.args)?.[1];
        if (ins.op === 'COPY' && from !== undefined)
          assert.ok(seen.has(from), `line ${ins.line}: --from=${from}`);
      }
      if (stage.name !== undefined) seen.add(stage.name);
    }
  });

  it('keeps to the hadolint rules that apply', () => {
    for (const stage of parsed) {
      assert.match(stage.image, /:[^:]+$/, `${stage.image}: tagged (DL3006)`);
      assert.doesNotMatch(stage.image, /:latest$/, `${stage.image} (DL3007)`);
    }
    for (const ins of all) {
      assert.notEqual(ins.op, 'ADD', `line ${ins.line}: COPY, not ADD (DL3020)`);
      if (ins.op === 'WORKDIR') assert.match(ins.args, /^\//, `line ${ins.line}: absolute WORKDIR (DL3000)`);
      if (ins.op === 'RUN' && /apt-get install/.test(ins.args)) {
        assert.match(
          ins.args,
          /apt-get install -y --no-install-recommends/,
          `line ${ins.line} (DL3014, DL3015)`,
        );
        assert.match(ins.args, /rm -rf \/var\/lib\/apt\/lists\/\*/, `line ${ins.line} (DL3009)`);
        assert.match(ins.args, /apt-get update/, `line ${ins.line}: update and install in one layer`);
      }
      if (ins.op === 'RUN') {
        assert.doesNotMatch(ins.args, /\|/, `line ${ins.line}: a pipe needs SHELL -o pipefail (DL4006)`);
        assert.doesNotMatch(ins.args, /(^|&&\s*)cd\s/, `line ${ins.line}: WORKDIR, not cd (DL3003)`);
      }
    }
    const ignores = dockerfile.split('\n').filter((l) => /^\s*# hadolint ignore=/.test(l));
    assert.deepEqual(
      ignores.map((l) => l.trim()),
      ['# hadolint ignore=DL3008'],
    );
  });

  it('leaves node_modules, dist and .git out of the build context', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const entry of ['node_modules', 'dist', '.git']) assert.ok(ignored.includes(entry), entry);
    // tsc -b compiles everything tsconfig includes, and build:cni-sea reads scripts/ and
    // sea-config.json: none of it may be left out.
    for (const needed of [
      'src',
      'test',
      'bench',
      'deploy',
      'deploy/render',
      'examples',
      'scripts',
      'sea-config.json',
    ]) {
      assert.ok(!ignored.includes(needed), needed);
    }
  });
});
