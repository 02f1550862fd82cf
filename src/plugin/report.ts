import { resolve } from 'node:path'
import { type Diagnostic, formatDiagnostic, OacError } from '../diagnostics.js'

/** A diagnostic in the shape Rollup, Rolldown and Vite take for `this.error` / `this.warn`. */
export interface BundlerLog {
  message: string
  code?: string
  /** The definition's file, absolute. */
  id?: string
  loc?: { file: string; line: number; column: number }
}

/** The diagnostics a failed compile carries; any other error becomes one diagnostic with its message. */
export function diagnosticsOf(error: unknown): readonly Diagnostic[] {
  if (error instanceof OacError) return error.diagnostics
  return [{ severity: 'error', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }]
}

export function errorsOf(error: unknown): Diagnostic[] {
  return diagnosticsOf(error).filter((d) => d.severity === 'error')
}

/** Where a diagnostic points, as an absolute file and 1-based line and column. */
export function locationOf(diagnostic: Diagnostic, root: string): BundlerLog['loc'] {
  if (!diagnostic.file) return undefined
  return { file: resolve(root, diagnostic.file), line: diagnostic.line ?? 1, column: diagnostic.column ?? 1 }
}

/** One log for one or more diagnostics: every one is in the message (with its file and line); the first gives the location. */
export function bundlerLog(diagnostics: readonly Diagnostic[], root: string): BundlerLog {
  const first = diagnostics[0]
  const loc = first && locationOf(first, root)
  return {
    message: diagnostics.map(formatDiagnostic).join('\n'),
    ...(first && { code: first.code }),
    ...(loc && { id: loc.file, loc }),
  }
}

/** A failed compile as text for a logger (the Vite dev server has no build to fail). */
export function failureText(error: unknown): string {
  return diagnosticsOf(error).map(formatDiagnostic).join('\n')
}
