// The types unplugin-oac takes from its optional peer dependencies, TypeBox 1.x (`typebox`) and 0.34
// (`@sinclair/typebox`). A project has either, both or neither, and a missing one must not fail its
// type check: these imports are not checked, and a missing package's types are `any`, which
// src/define/types.ts turns into `never`. Written by hand (and shipped as is) because TypeScript
// drops the comments of the import declarations it emits, `@ts-ignore` among them.

// @ts-ignore -- `typebox` may not be installed
export type { Static as TypeBoxStatic, TObject as TypeBoxObject, TSchema as TypeBoxSchema } from 'typebox'
// @ts-ignore -- `@sinclair/typebox` may not be installed
export type { Static as SinclairStatic, TObject as SinclairObject, TSchema as SinclairSchema } from '@sinclair/typebox'
