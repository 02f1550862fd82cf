import type { SourceLocation } from '../define/types.js'
import type { Diagnostic } from '../diagnostics.js'
import { projectPath } from '../project-path.js'
import type { PlannedSource } from './plan.js'

export function plannedSource(root: string, source: SourceLocation): PlannedSource {
  return { file: projectPath(root, source.file), line: source.line, column: source.column }
}

/** The `file`/`line`/`column` fields of a diagnostic about a definition made at `source`. */
export function diagnosticLocation(root: string, source: SourceLocation): Pick<Diagnostic, 'file' | 'line' | 'column'> {
  return plannedSource(root, source)
}
