import type { CompileResult } from '../api.js'
import { type Diagnostic, formatDiagnostic } from '../diagnostics.js'

export type FileStatus = 'written' | 'unchanged' | 'removed'

export interface FileLine {
  path: string
  status: FileStatus
}

export function fileLines(result: CompileResult): FileLine[] {
  const { written, unchanged, removed } = result.report
  const lines: FileLine[] = [
    ...written.map((path) => ({ path, status: 'written' as const })),
    ...unchanged.map((path) => ({ path, status: 'unchanged' as const })),
    ...removed.map((path) => ({ path, status: 'removed' as const })),
  ]
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

/** Every changed path with a mark, for --dry-run and --check. */
export function formatChanges(lines: FileLine[]): string {
  const changed = lines.filter((l) => l.status !== 'unchanged')
  if (changed.length === 0) return '  no changes'
  return changed.map((l) => `  ${l.status === 'removed' ? '-' : '~'} ${l.path}`).join('\n')
}

export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map(formatDiagnostic).join('\n')
}
