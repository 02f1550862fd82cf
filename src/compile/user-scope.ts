import type { RegistryDefinition } from '../define/types.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { harness } from './harnesses/index.js'

/**
 * A warning per file of a selected harness that a user-scope install leaves out (its description's
 * `userScope.left`: VS Code's, which live in its profile folder), when the plan has that part.
 */
export function warnLeftInHome(registry: RegistryDefinition, config: ResolvedConfig, present: { tools: number; commands: number }, findings: Findings): void {
  if (config.scope !== 'user') return
  for (const id of config.harnesses) {
    for (const left of harness(id).userScope.left ?? []) {
      if (present[left.part] === 0) continue
      findings.warning(
        'user-scope-left',
        `A user-scope install leaves out ${left.project}, which ${harness(id).title} reads in a project: ${left.says}.`,
        `Compile into the project as well (without --scope user) where those ${left.part} are wanted, or add them to that profile by hand.`,
        registry.source,
      )
    }
  }
}
