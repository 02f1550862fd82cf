import { isDeepStrictEqual } from 'node:util'
import type { SkillFolder } from '../compile/harnesses/types.js'
import { skillFolders } from '../compile/skills.js'
import { type Harness, HARNESSES } from '../define/types.js'
import { allowedToolsField, generatedAllowedTools } from '../emit/skills.js'

/*
 * A skill compiled into a project ends its `allowed-tools` with the rules that let its own commands
 * run unasked (Claude Code's `Bash(node scripts/<tool>.mjs:*)` and the rule for the skill's copy of
 * the script). They are compile's, made again on every compile: read back as the user's, the next
 * compile would write them twice. They are recognised by making them again with the emitter's own
 * functions, for the skill's folder and the scripts its folder holds copies of, and left out only
 * where that gives back exactly the value read.
 */

type AllowedTools = string | string[]

/**
 * `value`, the `allowed-tools` of the skill in `dir` (a folder of `skillsFolder`, holding `files`),
 * without the rules compile adds at its end; undefined when they are all it holds.
 */
export function withoutCompiledAllowedTools(value: AllowedTools, skillsFolder: string, dir: string, files: readonly string[]): AllowedTools | undefined {
  // Each harness that writes this folder adds its own rules, one after another: taken off from the end.
  const writers = skillFolders(HARNESSES).get(skillsFolder as SkillFolder) ?? []
  let rest: AllowedTools | undefined = value
  for (let index = writers.length - 1; index >= 0 && rest !== undefined; index--) {
    const before = withoutRulesOf(writers[index]!, rest, dir, files)
    if (before) rest = before.given
  }
  return rest
}

/** `value` without the rules `id` adds at its end for some of `files` run as the skill's commands (`given`), or undefined when it ends with none. */
function withoutRulesOf(id: Harness, value: AllowedTools, dir: string, files: readonly string[]): { given: AllowedTools | undefined } | undefined {
  const text = Array.isArray(value) ? value.at(-1) : value
  if (text === undefined) return undefined
  const rulesFor = (scripts: readonly string[]): string | undefined => generatedAllowedTools([id], scripts, dir)[0]
  const endsWithRulesFor = (scripts: readonly string[]) => {
    const rules = rulesFor(scripts)
    return rules !== undefined && text.endsWith(rules)
  }
  // The scripts, in their order, whose rules end the text: grown one script at a time towards its start.
  const scripts: string[] = []
  for (;;) {
    const next = files.find((file) => !scripts.includes(file) && endsWithRulesFor([file, ...scripts]))
    if (next === undefined) break
    scripts.unshift(next)
  }
  const rules = rulesFor(scripts)
  if (rules === undefined) return undefined
  // What the user wrote is what compile put before the rules: a list's other items, or the start of the text.
  const candidates: Array<AllowedTools | undefined> = Array.isArray(value) ? [value.slice(0, -1)] : [undefined, ...Array.from({ length: text.length }, (_, end) => text.slice(0, end))]
  const found = candidates.findIndex((given) => isDeepStrictEqual(allowedToolsField(given, [rules]), value))
  return found < 0 ? undefined : { given: candidates[found] }
}
