import type { DiagnosticCode } from './diagnostic-codes.js'

/**
 * A problem found in the user's definitions or files, with where it is and what to do. A `note` is a
 * warning a config profile (or `--diagnostic`) turned down: shown, but not counted as a warning.
 */
export interface Diagnostic {
  severity: 'error' | 'warning' | 'note'
  /** Stable machine-readable code, e.g. `tool-name-invalid`: one of DIAGNOSTIC_CODES. */
  code: DiagnosticCode
  message: string
  /** What the user should do about it. */
  fix?: string
  /** File (relative to the project root where possible), 1-based line and column. */
  file?: string
  line?: number
  column?: number
}

/** Thrown by pipeline stages when they cannot go on; carries every diagnostic found so far. */
export class OacError extends Error {
  readonly diagnostics: readonly Diagnostic[]
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic).join('\n'))
    this.name = 'OacError'
    this.diagnostics = diagnostics
  }
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.file ? `${d.file}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''}: ` : ''
  return `${where}${d.severity} ${formatDiagnosticBody(d)}`
}

/** A diagnostic without its place and severity, for hosts that show those themselves (bundlers). A note, read before, leaves out its fix. */
export function formatDiagnosticBody(d: Diagnostic): string {
  return `[${d.code}] ${d.message}${d.fix && d.severity !== 'note' ? `\n  fix: ${d.fix}` : ''}`
}

/** The diagnostics with the levels a config gave their codes: a warning turned off is gone, one turned down is a note. Errors stay. */
export function withLevels(levels: Readonly<Record<string, 'off' | 'note'>> | undefined, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  if (!levels) return [...diagnostics]
  return diagnostics.flatMap((d) => {
    const level = d.severity === 'warning' && Object.hasOwn(levels, d.code) ? levels[d.code] : undefined
    return level === 'off' ? [] : level === 'note' ? [{ ...d, severity: 'note' as const }] : [d]
  })
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}
