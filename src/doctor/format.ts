import { homedir } from 'node:os'
import { stringify as stringifyToml } from 'smol-toml'
import type { DoctorEdit, DoctorFix } from '../compile/harnesses/types.js'
import type { DoctorReport, HarnessCheck } from './index.js'

/* The text `oac doctor` prints: a line per harness, and under one that waits, each fix as a person does it. */

const MARK: Record<HarnessCheck['status'], string> = { ready: '✓', 'not-installed': '-', unprobed: '~', 'needs-step': '✗', failed: '✗' }

export function formatDoctor(report: DoctorReport): string {
  const lines = [`oac doctor: ${report.scope === 'user' ? 'your home' : report.target} (server ${report.server})`]
  if (report.harnesses.length === 0) lines.push('  it holds no file a harness reads')
  for (const check of report.harnesses) {
    const name = check.version ? `${check.title} ${check.version}` : check.title
    lines.push(`  ${MARK[check.status]} ${name}: ${summary(check)}`)
    for (const fix of check.fixes) lines.push(...fixLines(fix, check.fixes.length > 1))
  }
  const waiting = report.harnesses.filter((h) => h.status === 'needs-step' || h.status === 'failed').map((h) => h.title)
  lines.push(report.ok ? 'oac doctor: every installed harness sees the tools' : `oac doctor: ${waiting.join(', ')} ${waiting.length === 1 ? 'does' : 'do'} not see the tools yet`)
  return `${lines.join('\n')}\n`
}

function summary(check: HarnessCheck): string {
  switch (check.status) {
    case 'ready':
      return `ready (${check.sees})`
    case 'not-installed':
      return `not installed (${check.detail}), skipped`
    case 'unprobed':
      return `not probed: ${check.detail}`
    case 'failed':
      return `${check.detail}`
    case 'needs-step':
      return check.fixes.length === 1 ? check.fixes[0]!.says : `waits for ${check.fixes.length} steps`
  }
}

function fixLines(fix: DoctorFix, named: boolean): string[] {
  const lines = named ? [`      ${fix.says}:`] : []
  const ways: string[] = []
  if (fix.ask) ways.push(fix.ask)
  if (fix.command) ways.push(`run in ${shown(fix.command.cwd)}: ${fix.command.argv.map(quoted).join(' ')}`)
  if (fix.edits) ways.push(fix.edits.map(editText).join('; and '))
  ways.forEach((way, i) => lines.push(`      ${i === 0 ? 'fix:' : 'or: '} ${way}`))
  return lines
}

/** A settings edit as a person makes it: what to merge into which file. */
export function editText(edit: DoctorEdit): string {
  if (edit.op === 'add') return `add ${JSON.stringify(edit.value)} to the list ${edit.path.map((key) => JSON.stringify(key)).join(' > ')} in ${shown(edit.file)}`
  const nested = edit.path.reduceRight<unknown>((value, key) => ({ [key]: value }), edit.value) as Record<string, unknown>
  const text = edit.format === 'toml' ? stringifyToml(nested).trim().replace(/\n+/g, ' ') : JSON.stringify(nested)
  return `merge ${text} into ${shown(edit.file)}`
}

function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

/** A path with the user's home as `~`. */
function shown(path: string): string {
  const home = homedir()
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path
}
