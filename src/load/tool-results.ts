import { isTool } from '../compile/guards.js'
import type { AnyToolDefinition, RegistryDefinition } from '../define/types.js'
import { readContextMembers } from './hook-decisions.js'

/*
 * What a tool's `run` can return beside its text, read from its code as a hook's decisions are
 * (hook-decisions.ts): images only through `ctx.result`, details through `ctx.result` and `ctx.error`.
 * Compile warns about a harness that loses them (`tool-result-text-only`) only for the tools whose
 * code calls these, or does not tell.
 */

/** A part of a rich result that some harness loses. */
export type ResultPart = 'images' | 'details'

const PARTS_OF: Readonly<Record<string, readonly ResultPart[]>> = { result: ['images', 'details'], error: ['details'] }

/** Every tool definition a registry reaches (its own, its agents' and its skills'), each once. */
function everyTool(registry: RegistryDefinition): AnyToolDefinition[] {
  const owners: unknown[] = [...(Array.isArray(registry.agents) ? registry.agents : []), ...(Array.isArray(registry.skills) ? registry.skills : [])]
  const lists: unknown[] = [registry.tools, ...owners.map((owner) => (typeof owner === 'object' && owner !== null ? (owner as { tools?: unknown }).tools : undefined))]
  return [...new Set(lists.flatMap((list) => (Array.isArray(list) ? list.filter(isTool) : [])))]
}

/** The parts of a rich result each tool's `run` can return, where its module's code tells (a tool it does not tell of is left out: it may return any). */
export async function readToolResults(registry: RegistryDefinition): Promise<Map<AnyToolDefinition, ResultPart[]>> {
  const used = await readContextMembers(everyTool(registry), new Set(Object.keys(PARTS_OF)))
  return new Map([...used].map(([tool, members]) => [tool, [...new Set(members.flatMap((member) => PARTS_OF[member] ?? []))].sort()]))
}
