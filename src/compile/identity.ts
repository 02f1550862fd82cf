import type { SourceLocation } from '../define/types.js'
import type { Findings } from './findings.js'

/** How one kind of definition is named and described: what the checks every definition gets report. */
export interface IdentityRules {
  /** The kind, as the diagnostics' codes (`<noun>-name-invalid`, `<noun>-description-missing`) and messages name it. */
  noun: 'agent' | 'tool' | 'skill' | 'command' | 'rule'
  /** Why `name` cannot name a definition of the kind, or undefined when it can. */
  nameProblem(name: string): string | undefined
  /** How to rename one, with an example. */
  nameFix: string
  /** What the description is for, which the fix for a missing one says. */
  descriptionFix: string
  /** A definition may leave its description out (a command: harnesses show its first line). */
  descriptionOptional?: boolean
}

/** Reports a name the kind does not take and a missing description, at the definition; true when neither is wrong. */
export function checkIdentity(definition: { readonly name: unknown; readonly description?: unknown }, rules: IdentityRules, at: SourceLocation, findings: Findings): boolean {
  const nameProblem = typeof definition.name === 'string' ? rules.nameProblem(definition.name) : 'must be a string'
  if (nameProblem) findings.error(`${rules.noun}-name-invalid`, `The ${rules.noun} name "${String(definition.name)}" ${nameProblem}.`, rules.nameFix, at)
  const described = (rules.descriptionOptional === true && definition.description === undefined) || (typeof definition.description === 'string' && definition.description.trim() !== '')
  if (!described) {
    const kind = rules.noun[0]!.toUpperCase() + rules.noun.slice(1)
    findings.error(`${rules.noun}-description-missing`, `${kind} "${String(definition.name)}" has no description.`, rules.descriptionFix, at)
  }
  return !nameProblem && described
}
