import { relative, resolve, sep } from 'node:path'
import { type Diagnostic, formatDiagnostic } from '../diagnostics.js'
import { manifestPath } from '../write/manifest.js'
import type { WriteMode, WriteReport } from '../write/index.js'

/** A file's status: what the write did, or in a check or dry run what it would do. */
export type FileStatus = 'written' | 'unchanged' | 'removed' | 'would write' | 'would remove'

export interface FileLine {
  path: string
  status: FileStatus
  /** Codes of the diagnostics about this file (a hand edit, a user file in the way). */
  problems?: string[]
}

/**
 * One line per file of the target. In a check or dry run the manifest under `.oac/` is listed too when
 * it would change, and each file carries the codes of the diagnostics that name it (`file` is relative
 * to the working folder, or absolute).
 */
export function fileLines(report: Pick<WriteReport, 'written' | 'unchanged' | 'removed' | 'manifestChanged'>, mode: WriteMode, context: { target: string; owner: string; diagnostics: readonly Diagnostic[] }): FileLine[] {
  const preview = mode !== 'write'
  const problems = new Map<string, string[]>()
  for (const diagnostic of context.diagnostics) {
    if (!diagnostic.file) continue
    const path = relative(context.target, resolve(diagnostic.file)).split(sep).join('/')
    problems.set(path, [...(problems.get(path) ?? []), diagnostic.code])
  }
  const line = (path: string, status: FileStatus): FileLine => {
    const codes = problems.get(path)
    return codes ? { path, status, problems: codes } : { path, status }
  }
  const lines: FileLine[] = [
    ...report.written.map((path) => line(path, preview ? 'would write' : 'written')),
    ...report.unchanged.map((path) => line(path, 'unchanged')),
    ...report.removed.map((path) => line(path, preview ? 'would remove' : 'removed')),
  ]
  if (preview && report.manifestChanged) lines.push(line(manifestPath(context.owner), 'would write'))
  return lines.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** The folder a file is listed under in the short tree: its first two path segments at most. */
function group(path: string): string {
  const parts = path.split('/')
  return parts.length === 1 ? '.' : `${parts.slice(0, Math.min(2, parts.length - 1)).join('/')}/`
}

/** A short tree: one line per folder with its file count, then the totals. */
export function formatTree(lines: FileLine[]): string {
  const groups = new Map<string, { files: number; changed: number }>()
  for (const line of lines) {
    if (line.status === 'removed') continue
    const entry = groups.get(group(line.path)) ?? { files: 0, changed: 0 }
    entry.files += 1
    if (line.status === 'written') entry.changed += 1
    groups.set(group(line.path), entry)
  }
  const width = Math.max(0, ...[...groups.keys()].map((k) => k.length))
  const rows = [...groups].map(
    ([name, { files, changed }]) =>
      `  ${name.padEnd(width)}  ${String(files).padStart(3)} file${files === 1 ? ' ' : 's'}${changed ? `  (${changed} changed)` : ''}`,
  )
  const count = (status: FileStatus) => lines.filter((l) => l.status === status).length
  rows.push(`  ${count('written')} written, ${count('unchanged')} unchanged, ${count('removed')} removed`)
  return rows.join('\n')
}

/** Every file that differs, with a mark (`~` written, `-` removed) and the codes of its problems, for --dry-run and --check. */
export function formatChanges(lines: FileLine[]): string {
  const changed = lines.filter((l) => l.status !== 'unchanged')
  if (changed.length === 0) return '  no changes'
  return changed.map((l) => `  ${l.status === 'would remove' ? '-' : '~'} ${l.path}${l.problems ? `  [${l.problems.join(', ')}]` : ''}`).join('\n')
}

export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map(formatDiagnostic).join('\n')
}
