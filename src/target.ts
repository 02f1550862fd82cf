import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { harness } from './compile/harnesses/index.js'
import type { Plan } from './compile/plan.js'
import { targetOf } from './compile/target.js'
import { type Diagnostic, withLevels } from './diagnostics.js'
import type { OutputFile } from './emit/types.js'
import { instructionDiagnostics } from './instruction-files.js'
import { type WriteOptions, type WriteReport, writeOutputs } from './write/index.js'

/**
 * Puts a tree into its target folder, for every driver (the `compile` API, the CLI's check and dry
 * run, the build plugin): write/ writes it, and the warnings that depend on where the target lies on
 * disk come with the write's. Compile and the emitters never see the target, so they stay pure.
 */
export async function writeTarget(files: OutputFile[], plan: Plan, options: WriteOptions): Promise<WriteReport> {
  const report = await writeOutputs(files, { ...options, harnesses: plan.harnesses })
  return { ...report, diagnostics: withLevels(plan.diagnosticLevels, [...report.diagnostics, ...targetDiagnostics(plan, options.target), ...instructionDiagnostics(plan, options.target)]) }
}

/**
 * One warning per selected harness that finds a project's files from a folder below it only inside a
 * project root (its description's `projectRoot`: Codex), where no folder from the target up is one.
 */
export function targetDiagnostics(plan: Plan, target: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = []
  // Only a target harnesses are started in (a project) is looked for from the folder they start in.
  if (!targetOf(plan).startedIn) return diagnostics
  for (const id of plan.harnesses) {
    const { title, projectRoot } = harness(id)
    if (!projectRoot || insideRoot(target, projectRoot.markers)) continue
    const markers = projectRoot.markers.join(' or ')
    diagnostics.push({
      severity: 'warning',
      code: `${id}-no-project-root`,
      message: `The target folder ${resolve(target)} is in no ${title} project root (no folder from it up holds ${markers}): ${title} started in a folder below it reads the project files of that folder alone, so it shows none of the tools and agents this build writes.`,
      fix: `Make the target, or a folder above it, a git repository (\`git init\`), or name a file it holds in ${projectRoot.setting}. ${title} started in the target folder itself finds them either way.`,
    })
  }
  return diagnostics
}

/** True when `folder` or a folder above it holds one of `markers`, as the harness looks (any file or folder of that name). */
function insideRoot(folder: string, markers: readonly string[]): boolean {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    if (markers.some((marker) => existsSync(join(dir, marker)))) return true
    if (dirname(dir) === dir) return false
  }
}
