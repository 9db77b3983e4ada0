/**
 * TypeBox as the config schema uses it. Every import of the library goes through this module so
 * that `npm run build` can replace its output with one bundled module
 * (scripts/bundle-typebox.mjs): TypeBox ships as 266 ES modules, and loading them cost the agent
 * 12–15 MiB of RSS for code and module records (a bare `node` importing what is re-exported here:
 * +15 MiB RSS unbundled, +3 MiB bundled; the agent's RSS at rest 81 → 69 MiB), a tenth of its
 * memory target (bench/results/2026-12-07-house-before-after.md). Without that step (a plain
 * `tsc -b`) this module re-exports the package as it is, with the same behaviour.
 */
export { FormatRegistry, KindGuard, Type } from '@sinclair/typebox';
export type { SchemaOptions, Static, TInteger, TObject, TSchema, TString } from '@sinclair/typebox';
export { TypeCompiler } from '@sinclair/typebox/compiler';
export type { TypeCheck } from '@sinclair/typebox/compiler';
export { ValueErrorType } from '@sinclair/typebox/errors';
export type { ValueError } from '@sinclair/typebox/errors';
