import type { RuleDefinition } from '../define/rules.js'
import { HARNESSES, type Harness, type RegistryDefinition } from '../define/types.js'
import type { TextOwner } from '../load/prompts.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { isRule } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import { skillNameProblem } from './names.js'
import type { PlannedRule } from './plan.js'
import { registryList } from './registry-lists.js'
import { readsRulesIn, scopedRulesIn } from './rule-places.js'
import { unescapable } from './skills.js'
import { plannedSource } from './source.js'
import { targetOf, type TargetKind } from './target.js'

/*
 * Rules: instructions each selected harness reads exactly once, from its own instruction files
 * (where each reads them is its description's `instructions`, measured in docs/instructions.md).
 * A rule's text lands in a marked block of a file the user may also write, so it must not hold the
 * block's own markers; a harness that inlines `@file` lines would read more than the rule says.
 */

/** What starts every marker comment of a block unplugin-oac keeps in a user's Markdown file. */
export const BLOCK_MARKER = '<!-- oac:'

/** The registry's rules made by defineRule, each name once; anything else is reported. */
export function registryRules(registry: RegistryDefinition, findings: Findings): RuleDefinition[] {
  return registryList(registry, registry.rules, { key: 'rules', noun: 'rule', is: isRule, made: 'defineRule({ name, description, text })', unique: 'each rule is one section, or one file where a harness scopes rules by path' }, findings)
}

/** The rules the config picks by name (all of them when it names none); unknown names are reported. */
export function selectedRules(rules: RuleDefinition[], config: ResolvedConfig, registry: RegistryDefinition, findings: Findings): RuleDefinition[] {
  const names: unknown = config.profile.rules
  if (names === undefined) return rules
  const known = rules.map((rule) => rule.name).join(', ')
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    findings.error('config-rule-unknown', `Config "${config.config}"'s rules must be a list of rule names.`, `List some of: ${known || '(the registry has no rules)'}.`, registry.source)
    return []
  }
  for (const name of names.filter((name) => !rules.some((rule) => rule.name === name))) {
    findings.error(
      'config-rule-unknown',
      `Config "${config.config}" names the rule "${name}", which the registry's rules do not define.`,
      rules.length > 0 ? `Use some of: ${known}; or add the rule to defineRegistry({ rules }).` : 'Add the rule to defineRegistry({ rules: [...] }).',
      registry.source,
    )
  }
  return rules.filter((rule) => names.includes(rule.name))
}

const RULE_IDENTITY: IdentityRules = {
  noun: 'rule',
  nameProblem: skillNameProblem,
  nameFix: 'Rename the rule to lowercase words joined by hyphens, e.g. "house-style": it names the rule\'s file where a harness scopes rules by path.',
  descriptionFix: 'Say in a sentence what the rule is about: harnesses that pick rules by description show it.',
}

/** Why a glob cannot scope a rule in any harness, or undefined when it can. */
function globProblem(glob: string): string | undefined {
  if (glob.trim() === '') return 'is empty'
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return 'is absolute; rules match paths relative to the project'
  if (glob.includes('\\')) return 'has a "\\"; write "/" between folders'
  if (glob.startsWith('!')) return 'negates; no harness reads a negated rule glob'
  if (glob.split('/').some((part) => part === '.' || part === '..')) return 'has a "." or ".." part; write it from the project\'s root, as "src/**/*.ts"'
  return undefined
}

/** Checks a rule's `paths`: a list of globs every selected harness that scopes rules by path in the target can read. */
function checkPaths(rule: RuleDefinition, { harnesses, target }: RuleInputs, findings: Findings): string[] | undefined {
  const paths: unknown = rule.paths
  if (paths === undefined) return undefined
  const label = `Rule "${rule.name}"`
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((glob) => typeof glob === 'string')) {
    findings.error('rule-paths-invalid', `${label}'s paths must be a non-empty list of globs.`, 'List the files the rule is for, as ["src/**/*.test.ts"], or leave paths out for a rule that is always on.', rule.source)
    return undefined
  }
  let valid = true
  for (const glob of paths) {
    const problem = globProblem(glob)
    if (problem) {
      findings.error('rule-glob-invalid', `${label}'s glob "${glob}" ${problem}.`, 'Write each glob relative to the project root, with "/" between folders, as "src/**/*.test.ts".', rule.source)
      valid = false
    }
    // A comma-joined frontmatter (Copilot's `applyTo`) would split a brace list such as `*.{ts,tsx}` in two.
    const comma = glob.includes(',') ? harnesses.filter((id) => scopedRulesIn(id, target)?.form === 'comma-joined') : []
    if (comma.length > 0) {
      const where = comma.map((id) => `${harness(id).title} (\`${scopedRulesIn(id, target)!.key}\`)`).join(', ')
      findings.error('rule-glob-comma', `${label}'s glob "${glob}" has a comma, and ${where} reads a rule's globs as one comma-separated list: it would split it.`, 'Write one glob per alternative, as ["src/**/*.ts", "src/**/*.tsx"] for "src/**/*.{ts,tsx}".', rule.source)
      valid = false
    }
  }
  return valid ? [...paths] : undefined
}

/**
 * One warning per path rule for the selected harnesses that read rules in the target but cannot scope one
 * by path there: it is not written for them (those that read none there have `rule-target-unsupported`).
 */
function warnUnscoped(rule: RuleDefinition, { harnesses, target }: RuleInputs, findings: Findings): void {
  const unscoped = harnesses.filter((id) => readsRulesIn(id, target) && scopedRulesIn(id, target) === undefined)
  if (unscoped.length === 0) return
  findings.warning(
    'rule-paths-unscoped',
    `Rule "${rule.name}" is for ${rule.paths!.map((glob) => `"${glob}"`).join(', ')}, but ${unscoped.map((id) => harness(id).title).join(', ')} cannot scope a rule by path: the rule is not written for ${unscoped.length === 1 ? 'it' : 'them'}.`,
    `Accept it, give the rule no paths to have every harness read it always, or leave ${unscoped.join(', ')} out of the harnesses.`,
    rule.source,
  )
}

/** Reports text the selected harnesses would not read as written: one warning per kind of text. */
function checkText(rule: RuleDefinition, text: string, harnesses: readonly Harness[], findings: Findings): void {
  const found = new Map<string, { found: string; meaning: string; ids: Harness[] }>()
  for (const id of harnesses) {
    const { syntax } = harness(id).instructions
    const problem = syntax && unescapable(text, syntax)
    if (!problem) continue
    const key = `${problem.found}\0${problem.meaning}`
    const entry = found.get(key) ?? { ...problem, ids: [] }
    entry.ids.push(id)
    found.set(key, entry)
  }
  for (const { found: piece, meaning, ids } of found.values()) {
    findings.warning(
      'rule-text-expanded',
      `Rule "${rule.name}"'s text contains \`${piece}\`, which ${ids.map((id) => harness(id).title).join(', ')} ${ids.length === 1 ? 'reads' : 'read'} as its own syntax: there it ${meaning}.`,
      'Put the `@` inside backticks or after another character (as "at @name" becomes "at `@name`"), or move the file\'s text into the rule.',
      rule.source,
    )
  }
}

export interface RuleInputs {
  texts: ReadonlyMap<TextOwner, string>
  harnesses: readonly Harness[]
  root: string
  /** The kind of target compiled into: where each harness reads rules depends on it. */
  target: TargetKind
}

/** Checks one rule and turns it into its planned form (undefined when it cannot be planned). */
export function planRule(rule: RuleDefinition, inputs: RuleInputs, findings: Findings): PlannedRule | undefined {
  const at = rule.source
  const label = `Rule "${rule.name}"`
  const errorsBefore = findings.diagnostics.filter((d) => d.severity === 'error').length
  checkIdentity(rule, RULE_IDENTITY, at, findings)
  const text = inputs.texts.get(rule)
  if (text === undefined) {
    findings.error('rule-text-invalid', `${label}'s text is neither text nor { file }.`, "Set text to the instructions, or to { file: './rule.md' } (next to this module).", at)
  } else if (text.trim() === '') {
    findings.error('rule-text-empty', `${label}'s text is empty.`, 'Write the instructions the rule gives, or remove the rule.', at)
  } else if (text.includes(BLOCK_MARKER)) {
    findings.error('rule-text-marker', `${label}'s text contains \`${BLOCK_MARKER}\`, which starts the comments that mark unplugin-oac's block in a user's file.`, `Write it another way (e.g. "<!-- oac :").`, at)
  } else checkText(rule, text, inputs.harnesses, findings)
  const paths = checkPaths(rule, inputs, findings)
  if (findings.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined
  if (paths) warnUnscoped(rule, inputs, findings)
  return {
    name: rule.name,
    description: rule.description,
    text: text!,
    ...(paths && { paths }),
    source: plannedSource(inputs.root, at),
  }
}

/**
 * A warning for each selected harness with a cap on the instructions it reads, naming the rule whose
 * text passes it: the harness reads every rule at start (it scopes none by path), so its share is all
 * of their text, before the user's own instructions. The cap is on a project's files alone.
 */
export function warnInstructionCap(rules: readonly PlannedRule[], harnesses: readonly Harness[], target: TargetKind, sources: ReadonlyMap<string, RuleDefinition>, findings: Findings): void {
  if (target !== 'project') return
  for (const id of harnesses) {
    const { title, instructions } = harness(id)
    if (!instructions.cap) continue
    let bytes = 0
    const over = rules.find((rule) => (bytes += Buffer.byteLength(rule.text, 'utf8')) > instructions.cap!.bytes)
    if (!over) continue
    findings.warning(
      'rule-instructions-cap',
      `${title} reads at most ${instructions.cap.bytes} bytes of project instructions and cuts the rest; with rule "${over.name}" the rules' text alone is ${bytes} bytes.`,
      `Shorten the rules, give ${title} fewer of them (a config's rules), or raise ${instructions.cap.setting}.`,
      sources.get(over.name)?.source,
    )
  }
}

/** One warning for the selected harnesses that read no rules in the target (a plugin folder of a format that carries none). */
export function warnRulesTarget(rules: readonly PlannedRule[], config: ResolvedConfig, registry: RegistryDefinition, findings: Findings): void {
  const { kind } = targetOf(config)
  const left = config.harnesses.filter((id) => !readsRulesIn(id, kind))
  if (rules.length === 0 || left.length === 0) return
  const titles = left.map((id) => harness(id).title).join(', ')
  const carriers = HARNESSES.filter((id) => readsRulesIn(id, kind)).map((id) => harness(id).title).join(', ')
  findings.warning(
    'rule-target-unsupported',
    `The registry's rules (${rules.map((rule) => `"${rule.name}"`).join(', ')}) are not written into the plugin folder for ${titles}: unplugin-oac puts instructions into a plugin folder only where a format reads them from a file of the folder (for ${carriers}).`,
    'Compile the rules into the project (without --plugin) or the home (--scope user) for them, or keep them out of this config (its rules).',
    registry.source,
  )
}
