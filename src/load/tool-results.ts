import type { AnyToolDefinition } from '../define/types.js'
import type { DefinitionModules } from './run-context.js'

/*
 * What a tool's `run` can return beside its text, read from its code as a hook's decisions are
 * (run-context.ts): images only through `ctx.result`, details through `ctx.result` and `ctx.error`.
 * Compile warns about a harness that loses them (`tool-result-text-only`) only for the tools whose
 * code calls these, or does not tell.
 */

/** A part of a rich result that some harness loses. */
export type ResultPart = 'images' | 'details'

const PARTS_OF: Readonly<Record<string, readonly ResultPart[]>> = { result: ['images', 'details'], error: ['details'] }

/** The parts of a rich result each tool's `run` can return, where its module's code tells (a tool it does not tell of is left out: it may return any). */
export async function readToolResults(tools: readonly AnyToolDefinition[], modules: DefinitionModules): Promise<Map<AnyToolDefinition, ResultPart[]>> {
  const used = await modules.contextMembers(tools, new Set(Object.keys(PARTS_OF)))
  return new Map([...used].map(([tool, members]) => [tool, [...new Set(members.flatMap((member) => PARTS_OF[member] ?? []))].sort()]))
}
