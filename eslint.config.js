// Flat config: type-checked rules for our code; generated files are skipped because their shape
// comes from VPP's .api.json and etcd's protos (through proto-loader-gen-types), not from us.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint/layers.js';

// The layers of src/, bottom first (README, Architecture). A module imports itself and lower
// layers only; the modules of one layer do not import each other. Unit tests and test/, bench/,
// deploy/ sit above all of them.
const LAYERS = [
  { name: 'foundation', modules: ['src/util', 'src/net'] },
  { name: 'vpp errors', modules: ['src/vpp/errors.ts'] },
  { name: 'wire', modules: ['src/vpp/wire'] },
  { name: 'transport', modules: ['src/vpp/transport'] },
  { name: 'codec', modules: ['src/vpp/codec'] },
  // The client imports messages (control_ping, the message table), never the other way round.
  { name: 'messages', modules: ['src/vpp/messages', 'src/vpp/generator'] },
  { name: 'client', modules: ['src/vpp/client', 'src/vpp/sim'] },
  { name: 'contracts', modules: ['src/config', 'src/agent-api'] },
  { name: 'reconcile', modules: ['src/reconcile'] },
  { name: 'dataplane', modules: ['src/dataplane'] },
  { name: 'domain', modules: ['src/srv6', 'src/services'] },
  // The composition of every kind into one registry, the desired state and the reconcile pass.
  { name: 'composition', modules: ['src/hypervisor'] },
  { name: 'host', modules: ['src/netns'] },
  // Fleet mode's store: records, their validation, the etcd client and the scoped view.
  { name: 'datastore', modules: ['src/datastore'] },
  { name: 'attachments', modules: ['src/attachments'] },
  { name: 'agent', modules: ['src/agent'] },
  {
    name: 'programs',
    modules: ['src/cli', { path: 'src/cni', mayImport: ['src/agent-api', 'src/net', 'src/util'] }],
  },
];

const LAYER_EXCEPTIONS = [];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'src/vpp/messages/generated/**',
      'src/datastore/etcd/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { vppnet: layers },
    rules: { 'vppnet/layers': ['error', { layers: LAYERS, exceptions: LAYER_EXCEPTIONS }] },
  },
  {
    // TypeBox only through src/config/typebox.ts, whose output `npm run build` bundles
    // (scripts/bundle-typebox.mjs): a second import path would load the 266 modules again.
    files: ['**/*.ts'],
    ignores: ['src/config/typebox.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@sinclair/typebox', '@sinclair/typebox/*'],
              message: 'import TypeBox from src/config/typebox.ts (bundled by npm run build)',
            },
          ],
        },
      ],
    },
  },
  {
    // node:test's describe/it return promises the runner itself awaits.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // Plain-JS build scripts run on Node.
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
  },
);
