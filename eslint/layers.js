// vppnet/layers: imports in src/ point down the layer table given as the rule's options
// (eslint.config.js holds the table). Dependency-free: it only reads relative import specifiers.
//
// Options: { layers: [{ name, modules: [entry…] }…] (bottom first), exceptions: [{ from, to, why }] }
// - entry: a path under the repository root, a folder or one file ('src/vpp/errors.ts'), or
//   { path, mayImport: [path…] } to narrow what that module may use further.
// - A file belongs to the module with the longest matching path; a file of no module is reported.
// - A module may import itself and any module of a lower layer; modules of one layer are
//   independent of each other. Exceptions name one importing file and one imported file.
// - Unit tests (*.test.ts) and files outside src/ (test, bench, deploy) sit above every layer.
import path from 'node:path';

const posix = path.posix;

/** @param {string} p */
function toRepoPath(p) {
  return p.split(path.sep).join('/');
}

/** Imports name the compiled .js; the table names sources. */
function sourcePath(p) {
  return p.endsWith('.js') ? `${p.slice(0, -3)}.ts` : p;
}

function within(file, modulePath) {
  return file === modulePath || file.startsWith(`${modulePath.replace(/\/$/, '')}/`);
}

function compileTable(options) {
  const modules = [];
  options.layers.forEach((layer, rank) => {
    for (const entry of layer.modules) {
      const spec = typeof entry === 'string' ? { path: entry } : entry;
      modules.push({ path: spec.path, layer: layer.name, rank, mayImport: spec.mayImport });
    }
  });
  // Longest path first: a file entry inside a folder entry wins.
  modules.sort((a, b) => b.path.length - a.path.length);
  return {
    moduleOf: (file) => modules.find((m) => within(file, m.path)),
    exceptions: options.exceptions ?? [],
  };
}

/** @type {import('eslint').Rule.RuleModule} */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports in src/ point down the layer table (README, Architecture)' },
    schema: [
      {
        type: 'object',
        properties: {
          layers: { type: 'array' },
          exceptions: { type: 'array' },
        },
        required: ['layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      noLayer: '{{file}} belongs to no module of the layer table (eslint.config.js, vppnet/layers).',
      up: '{{from}} ({{fromLayer}}) imports {{to}} ({{toLayer}}): imports point down only.',
      sibling:
        '{{from}} and {{to}} are separate modules of the {{fromLayer}} layer, which do not import each other.',
      notAllowed: '{{from}} may import only {{allowed}}, not {{to}}.',
      outsideSrc: '{{from}} imports {{to}}: code in src/ never imports test/, bench/ or deploy/.',
    },
  },
  create(context) {
    const file = toRepoPath(posix.normalize(toRepoPath(path.relative(context.cwd, context.filename))));
    if (!file.startsWith('src/') || file.endsWith('.test.ts')) return {};
    const table = compileTable(context.options[0]);
    const from = table.moduleOf(file);

    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.') || !from) return;
      const target = sourcePath(posix.normalize(posix.join(posix.dirname(file), specifier)));
      if (table.exceptions.some((e) => e.from === file && e.to === target)) return;
      const data = { from: file, to: target, fromLayer: from.layer };
      if (!target.startsWith('src/')) {
        context.report({ node, messageId: 'outsideSrc', data });
        return;
      }
      const to = table.moduleOf(target);
      if (!to) {
        context.report({ node, messageId: 'noLayer', data: { file: target } });
        return;
      }
      if (to === from) return;
      const withLayers = { ...data, toLayer: to.layer };
      if (to.rank > from.rank) context.report({ node, messageId: 'up', data: withLayers });
      else if (to.rank === from.rank) context.report({ node, messageId: 'sibling', data: withLayers });
      else if (from.mayImport && !from.mayImport.some((m) => within(target, m)))
        context.report({
          node,
          messageId: 'notAllowed',
          data: { ...data, allowed: from.mayImport.join(', ') },
        });
    }

    return {
      Program(node) {
        if (!from) context.report({ node, messageId: 'noLayer', data: { file } });
      },
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default { rules: { layers: layersRule } };
