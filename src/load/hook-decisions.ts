import { type AnyHookDefinition, EVENT_DECISIONS, type HookDecisionKind } from '../define/hooks.js'
import type { DefinitionModules } from './run-context.js'

/*
 * What a hook's `run` can decide, read from its code: the methods of its ctx it calls (run-context.ts).
 * Compile warns about a decision a harness cannot carry only where the hook makes it, so that a guard
 * that only blocks is not warned about Codex's `ask`. Where the code does not tell, the hook may make
 * any decision of its event.
 */

const DECISIONS = new Set<string>(Object.values(EVENT_DECISIONS).flat())

/** Each hook's decisions, where its module's code tells them. */
export async function readHookDecisions(hooks: readonly AnyHookDefinition[], modules: DefinitionModules): Promise<Map<AnyHookDefinition, HookDecisionKind[]>> {
  return (await modules.contextMembers(hooks, DECISIONS)) as Map<AnyHookDefinition, HookDecisionKind[]>
}
