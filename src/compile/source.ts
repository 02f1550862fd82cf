import { isAbsolute, relative, sep } from 'node:path'
import type { SourceLocation } from '../define/types.js'
import type { Diagnostic } from '../diagnostics.js'
import type { PlannedSource } from './plan.js'

/** A path relative to the project root with POSIX separators (`..` where the file lies outside it). */
export function projectPath(root: string, file: string): string {
  if (!isAbsolute(file)) return file
  return relative(root, file).split(sep).join('/')
}

export function plannedSource(root: string, source: SourceLocation): PlannedSource {
  return { file: projectPath(root, source.file), line: source.line, column: source.column }
}

/** The `file`/`line`/`column` fields of a diagnostic about a definition made at `source`. */
export function diagnosticLocation(root: string, source: SourceLocation): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  return plannedSource(root, source)
}
