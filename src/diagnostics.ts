/** A problem found in the user's definitions or files, with where it is and what to do. */
export interface Diagnostic {
  severity: 'error' | 'warning'
  /** Stable machine-readable code, e.g. `tool-name-invalid`. */
  code: string
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

/** A diagnostic without its place and severity, for hosts that show those themselves (bundlers). */
export function formatDiagnosticBody(d: Diagnostic): string {
  return `[${d.code}] ${d.message}${d.fix ? `\n  fix: ${d.fix}` : ''}`
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}
