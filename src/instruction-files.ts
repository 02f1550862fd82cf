import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { harness } from './compile/harnesses/index.js'
import type { Plan } from './compile/plan.js'
import { targetOf } from './compile/target.js'
import type { Harness } from './define/types.js'
import type { Diagnostic } from './diagnostics.js'
import { AGENTS_MD } from './emit/rules.js'
import { blockBegin } from './write/markdown-merge.js'

/*
 * The user's own instruction files beside the block of always-on rules in the root AGENTS.md: one that
 * makes a harness read the rules twice (a copy or link of AGENTS.md, an `@AGENTS.md` line where the
 * harness does not read an import once), or that takes AGENTS.md's place, is reported with what to do.
 * Which files each harness reads is its description's `instructions` (docs/instructions.md). In a home,
 * a file that takes the place of a harness's home file is reported the same way.
 */

const IMPORTS_AGENTS_MD = /(?:^|[ \t])@(?:\.\/)?AGENTS\.md(?=[ \t\r\n]|$)/m

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

export function instructionDiagnostics(plan: Plan, target: string): Diagnostic[] {
  if (!(plan.rules ?? []).some((rule) => rule.paths === undefined)) return []
  const { kind } = targetOf(plan)
  if (kind === 'home') {
    // Each harness reads its own home file: one that another file of the home hides is reported.
    return plan.harnesses.flatMap((id) => {
      const { file, hiddenBy = [] } = harness(id).instructions.home
      return hiddenBy.filter((path) => readText(join(target, path)) !== undefined).map((path) => hidden(id, path, file))
    })
  }
  if (kind !== 'project') return []
  const diagnostics: Diagnostic[] = []
  for (const id of plan.harnesses) {
    const { title, instructions } = harness(id)
    for (const path of instructions.alsoReads ?? []) {
      const text = readText(join(target, path))
      if (text === undefined) continue
      const copy = text.includes(blockBegin(plan.serverName))
      if (!copy && (instructions.importsOnce || !IMPORTS_AGENTS_MD.test(text))) continue
      diagnostics.push({
        severity: 'warning',
        code: 'rule-read-twice',
        file: path,
        message: `${title} reads ${path} together with ${AGENTS_MD}, and ${path} ${copy ? `holds ${AGENTS_MD}'s text (a copy or a link of it)` : `imports ${AGENTS_MD}`}: ${title} reads the rules twice.`,
        fix: copy ? `Delete ${path}, or keep in it only what is not in ${AGENTS_MD}.` : `Remove the @${AGENTS_MD} line from ${path}: ${title} reads ${AGENTS_MD} already.`,
      })
    }
    for (const path of instructions.hiddenBy ?? []) if (readText(join(target, path)) !== undefined) diagnostics.push(hidden(id, path, AGENTS_MD))
  }
  return diagnostics
}

/** Harness `id` reads `path` in place of `file`, the rules' file. */
function hidden(id: Harness, path: string, file: string): Diagnostic {
  const { title } = harness(id)
  return {
    severity: 'warning',
    code: 'rule-hidden',
    file: path,
    message: `${title} reads ${path} in place of ${file}: it reads none of the rules.`,
    fix: `Move ${path}'s text into ${file} and delete ${path}, or leave ${id} out of the harnesses.`,
  }
}
