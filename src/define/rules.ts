import { callerLocation } from './source.js'
import type { SourceLocation, TextSource } from './tool-types.js'

export interface RuleOptions {
  /** The rule's name: lowercase letters, digits and single hyphens (it names the rule's file where a harness scopes rules by path). */
  name: string
  /** What the rule is about, in a sentence: used where a harness shows or selects rules by description. */
  description: string
  /** The instructions themselves, as text or as a Markdown file next to this module. */
  text: TextSource
  /**
   * Globs of project files (relative to the project, `/` between folders) the rule is for: where a
   * harness scopes rules by path it loads the rule only for those files. Without them the rule is always on.
   */
  paths?: readonly string[]
}

export interface RuleDefinition {
  readonly kind: 'oac:rule'
  readonly name: string
  readonly description: string
  readonly text: string | { readonly file: string }
  readonly paths?: readonly string[]
  readonly source: SourceLocation
}

/**
 * Defines a rule: instructions every selected harness reads exactly once, from its own instruction
 * files (always on), or only for the files `paths` matches where a harness scopes rules by path.
 */
export function defineRule(options: RuleOptions): RuleDefinition {
  return {
    kind: 'oac:rule',
    name: options.name,
    description: options.description,
    text: options.text,
    ...(options.paths !== undefined && { paths: options.paths }),
    source: callerLocation(),
  }
}
