import { harness } from '../compile/harnesses/index.js'
import type { ScopedRules } from '../compile/harnesses/types.js'
import type { Plan, PlannedRule } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { listItemPath, type OutputFile } from './types.js'

/*
 * Rules, from each harness's `instructions` description (measured: docs/instructions.md). The always-on
 * rules are one block of ours in the project's root AGENTS.md, which every harness then reads once: most
 * by themselves, Claude Code through an import line in `.claude/CLAUDE.md` (a block of ours too), Gemini
 * CLI once its `context.fileName` lists it. A path rule is a file of its own where a harness scopes rules
 * by path, written once for the harnesses that read one folder. Pure.
 */

/** The root instruction file the always-on rules go into. */
export const AGENTS_MD = 'AGENTS.md'

export function emitRules(plan: Plan): OutputFile[] {
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

/** A block of ours in a Markdown file a user may also write. */
function block(path: string, id: string, text: string): OutputFile {
  return { kind: 'merge', path, format: 'markdown', entries: [{ keyPath: [id], value: text }] }
}

/** The scoped-rule folders written for `harnesses`: each one's own, unless it reads a selected harness's folder too. */
function scopedFolders(harnesses: readonly Harness[]): ScopedRules[] {
  return harnesses.flatMap((id) => {
    const { scoped, readsScopedOf } = harness(id).instructions
    if (!scoped || readsScopedOf?.some((other) => harnesses.includes(other))) return []
    return [scoped]
  })
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
