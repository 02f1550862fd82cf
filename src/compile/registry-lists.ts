import type { RegistryDefinition, SourceLocation } from '../define/types.js'
import type { Findings } from './findings.js'

/** What a list of the registry holds, and how to say what is wrong with it. */
export interface DefinitionList<D extends { name: string; source: SourceLocation }> {
  /** The registry's key (`agents`, `hooks`, ...), as the user writes it. */
  key: string
  /** The definition, as messages name it: `agent`, `hook`, ... */
  noun: 'agent' | 'tool' | 'hook' | 'skill' | 'command' | 'rule'
  is: (value: unknown) => value is D
  /** How one is made: `defineHook({ name, description, on, run })`. */
  made: string
  /** Why each must have a name of its own: `each hook becomes one script`. */
  unique: string
  /** The registry must have the list (its agents); others may leave it out. */
  required?: boolean
}

/**
 * A list of the registry's definitions, each made by its define function and each name once (the same
 * definition listed twice counts once); anything else is reported where the registry is defined.
 */
export function registryList<D extends { name: string; source: SourceLocation }>(registry: RegistryDefinition, list: unknown, kind: DefinitionList<D>, findings: Findings): D[] {
  if (list === undefined && !kind.required) return []
  const define = kind.made.replace(/\(.*$/, '')
  if (!Array.isArray(list)) {
    findings.error('definition-invalid', `The registry's ${kind.key} is not a list.`, `Pass ${kind.key}: [${define}({ ... }), ...] to defineRegistry.`, registry.source)
    return []
  }
  const definitions: D[] = []
  list.forEach((value: unknown, i) => {
    if (!kind.is(value)) {
      findings.error('definition-invalid', `registry.${kind.key}[${i}] is not ${/^[aeiou]/.test(kind.noun) ? 'an' : 'a'} ${kind.noun} made by ${define}.`, `Create ${kind.key} with ${kind.made} from 'unplugin-oac'.`, registry.source)
      return
    }
    addOnce(definitions, value, (twin) =>
      findings.error(`${kind.noun}-duplicate`, `Two ${kind.key} are named "${value.name}": this one and the one at ${findings.where(twin.source)}.`, `Rename one of them: ${kind.unique}.`, value.source),
    )
  })
  return definitions
}

/**
 * Adds `value` to `definitions` where no definition of its name is there yet. The same definition
 * reached again is passed over; another of the same name is handed to `duplicate`, and not added.
 */
export function addOnce<D extends { name: string }>(definitions: D[], value: D, duplicate: (twin: D) => void): void {
  const twin = definitions.find((other) => other.name === value.name)
  if (twin === undefined) definitions.push(value)
  else if (twin !== value) duplicate(twin)
}
