import { harness } from '../compile/harnesses/index.js'
import type { ScopedRules } from '../compile/harnesses/types.js'
import type { Plan, PlannedRule } from '../compile/plan.js'
import { instructionPlace } from '../compile/rule-places.js'
import { targetOf } from '../compile/target.js'
import type { Harness, JsonValue } from '../define/types.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { listItemPath, type OutputFile } from './types.js'

/*
 * Rules, from each harness's `instructions` description (measured: docs/instructions.md). The always-on
 * rules are one block of ours in the project's root AGENTS.md, which every harness then reads once: most
 * by themselves, Claude Code through an import line in `.claude/CLAUDE.md` (a block of ours too), Gemini
 * CLI once its `context.fileName` lists it. A path rule is a file of its own where a harness scopes rules
 * by path, written once for the harnesses that read one folder. In a home and in a plugin folder each
 * harness reads its own file (its description's `home`, `plugin`): the always-on rules go into each, once
 * per file, as a block of ours in a home and as the whole file in a plugin folder. Pure.
 */

/** The root instruction file the always-on rules go into. */
export const AGENTS_MD = 'AGENTS.md'

export function emitRules(plan: Plan): OutputFile[] {
  const { kind } = targetOf(plan)
  return kind === 'project' ? projectRules(plan) : placedRules(plan, kind)
}

function projectRules(plan: Plan): OutputFile[] {
  const rules = plan.rules ?? []
  const always = rules.filter((rule) => rule.paths === undefined)
  const files: OutputFile[] = []
  if (always.length > 0) {
    files.push(block(AGENTS_MD, plan.serverName, always.map((rule) => rule.text.trim()).join('\n\n')))
    for (const id of plan.harnesses) {
      const reach = harness(id).instructions.agentsMd
      if (reach === 'reads') continue
      if ('importFrom' in reach) files.push(block(reach.importFrom, plan.serverName, reach.line))
      else files.push({ kind: 'merge', path: reach.setting.file, format: 'json', entries: reach.setting.items.map((item) => ({ keyPath: listItemPath(reach.setting.list, item), value: item })) })
    }
  }
  const scoped = rules.filter((rule) => rule.paths !== undefined)
  for (const folder of scopedFolders(plan.harnesses)) {
    for (const rule of scoped) files.push({ kind: 'owned', path: folder.file(rule.name), content: scopedRule(folder, rule) })
  }
  return dedupe(files)
}

/** The rules where each harness reads its own instructions in a home or a plugin folder. */
function placedRules(plan: Plan, kind: 'home' | 'plugin'): OutputFile[] {
  const rules = plan.rules ?? []
  const always = rules.filter((rule) => rule.paths === undefined)
  const text = always.map((rule) => rule.text.trim()).join('\n\n')
  const files: OutputFile[] = []
  for (const id of plan.harnesses) {
    const place = instructionPlace(id, kind)
    if (!place) continue
    if (always.length > 0) files.push(kind === 'home' ? block(place.file, plan.serverName, text) : { kind: 'owned', path: place.file, content: `${text}\n` })
    if (place.scoped) for (const rule of rules) if (rule.paths) files.push({ kind: 'owned', path: place.scoped.file(rule.name), content: scopedRule(place.scoped, rule) })
  }
  return onePerPath(files)
}

/** A block of ours in a Markdown file a user may also write. */
function block(path: string, id: string, text: string): OutputFile {
  return { kind: 'merge', path, format: 'markdown', entries: [{ keyPath: [id], value: text }] }
}

/** The scoped-rule folders written for `harnesses`: each one's own, unless it reads another's folder that is written. */
function scopedFolders(harnesses: readonly Harness[]): ScopedRules[] {
  const written = (id: Harness): boolean => {
    const { scoped, readsScopedOf } = harness(id).instructions
    return scoped !== undefined && !readsScopedOf?.some((other) => harnesses.includes(other) && written(other))
  }
  return harnesses.filter(written).map((id) => harness(id).instructions.scoped!)
}

function scopedRule(folder: ScopedRules, rule: PlannedRule): string {
  const globs: JsonValue = folder.form === 'list' ? rule.paths! : rule.paths!.join(',')
  return markdownWithFrontmatter({ description: rule.description, [folder.key]: globs }, rule.text)
}

/** One file per path: two harnesses that read one file get it once (the emitters' shared merge combines the rest). */
function dedupe(files: OutputFile[]): OutputFile[] {
  const seen = new Set<string>()
  return files.filter((file) => file.kind === 'merge' || (!seen.has(file.path) && seen.add(file.path)))
}

/** One file per path, merges too: outside a project each is the one block of the always-on rules. */
function onePerPath(files: OutputFile[]): OutputFile[] {
  const seen = new Set<string>()
  return files.filter((file) => !seen.has(file.path) && seen.add(file.path))
}
