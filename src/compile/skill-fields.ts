import { type Harness, HARNESSES, type JsonValue, type SkillDefinition } from '../define/types.js'
import { nonJsonPath } from './agents.js'
import type { Findings } from './findings.js'
import { harness } from './harnesses/index.js'
import type { SkillFolder } from './harnesses/types.js'
import type { PlannedSkill } from './plan.js'

/*
 * A skill's SKILL.md fields besides its name and description. The Agent Skills format's optional
 * fields (agentskills.io: `license`, `compatibility` of 1-500 characters, `metadata` a map of text to
 * text, `allowed-tools`) are read by every harness that reads the format, so they go into every
 * SKILL.md. Any other key (Claude Code's `user-invocable`, a `version`) is one harness's: it goes into
 * the SKILL.md that harness reads. A folder several harnesses read (`.agents/skills`) carries the keys
 * of each of them, as a harness passes over a key it does not read; two of them giving one key two
 * values cannot share the file (`skill-harness-conflict`).
 */

export const COMPATIBILITY_CAP = 500

/** Keys compile writes from the definition's own fields, which a harness's bag cannot replace. */
export const SKILL_OWN_KEYS: readonly string[] = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools', 'disable-model-invocation']

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A text field of the format (`license`, `compatibility`): a string with something in it. */
export const isFieldText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== ''

/** `metadata`: text keys to text values. */
export const isTextMap = (value: unknown): value is Record<string, string> => isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string')

/** `allowed-tools`: a text or a list of texts. */
export const isToolList = (value: unknown): value is string | string[] => (Array.isArray(value) ? (value as unknown[]) : [value]).every(isFieldText)

/** The format's optional fields as SKILL.md says them, and each harness's own keys; problems are reported. */
export function planSkillFields(skill: SkillDefinition, folders: ReadonlyMap<SkillFolder, readonly Harness[]>, findings: Findings): Pick<PlannedSkill, 'fields' | 'harness'> {
  const label = `Skill "${skill.name}"`
  const at = skill.source
  const fields: { [key: string]: JsonValue } = {}
  const text = (field: 'license' | 'compatibility', key: string, fix: string) => {
    const value: unknown = skill[field]
    if (value === undefined) return
    if (!isFieldText(value)) findings.error('skill-field-invalid', `${label}'s ${field} is not a text.`, fix, at)
    else fields[key] = value
  }
  text('license', 'license', "Name the license (e.g. 'MIT'), or the file beside SKILL.md that holds it, or leave license out.")
  text('compatibility', 'compatibility', "Say what the skill needs to run (e.g. 'Needs git and network access'), or leave compatibility out.")
  if (typeof fields.compatibility === 'string' && fields.compatibility.length > COMPATIBILITY_CAP) {
    findings.error('skill-field-invalid', `${label}'s compatibility is ${fields.compatibility.length} characters; the Agent Skills format allows ${COMPATIBILITY_CAP}.`, `Shorten it to ${COMPATIBILITY_CAP} characters at most, and move the details into the instructions.`, at)
    delete fields.compatibility
  }
  const metadata: unknown = skill.metadata
  if (metadata !== undefined) {
    if (isTextMap(metadata)) fields.metadata = { ...metadata }
    else {
      const bad = isPlainObject(metadata) ? Object.keys(metadata).find((key) => typeof metadata[key] !== 'string') : undefined
      findings.error('skill-field-invalid', `${label}'s metadata${bad ? `.${bad}` : ''} is not ${bad ? 'a text' : 'a map of text keys to text values'}.`, "Give metadata as text keys and text values, e.g. { author: 'acme', version: '1.0' } (a number as '1.0').", at)
    }
  }
  const allowedTools: unknown = skill.allowedTools
  if (allowedTools !== undefined) {
    if (!isToolList(allowedTools)) findings.error('skill-field-invalid', `${label}'s allowedTools is not a text or a list of texts.`, "List the tools as the harness names them, e.g. 'Bash(git:*) Read' or ['Bash(git:*)', 'Read'], or leave allowedTools out.", at)
    else fields['allowed-tools'] = Array.isArray(allowedTools) ? [...allowedTools] : allowedTools
  }

  const own: PlannedSkill['harness'] = {}
  const bags: unknown = skill.harness
  if (!isPlainObject(bags)) {
    if (bags !== undefined) findings.error('skill-field-invalid', `${label}'s harness is not a map of harness names to fields.`, "Give each harness's own SKILL.md keys, e.g. harness: { claude: { 'user-invocable': false } }.", at)
    return { fields, harness: own }
  }
  for (const [id, bag] of Object.entries(bags)) {
    if (!(HARNESSES as readonly string[]).includes(id)) {
      findings.error('skill-field-invalid', `${label}'s harness has the key "${id}", which is not a harness.`, `Use harness names: ${HARNESSES.join(', ')}.`, at)
      continue
    }
    const bad = isPlainObject(bag) ? nonJsonPath(bag) : ''
    if (bad !== undefined) {
      findings.error('skill-field-invalid', `${label}'s harness.${id}${bad} is not a JSON value.`, 'Harness fields are written into SKILL.md: use strings, finite numbers, booleans, null, arrays and plain objects.', at)
      continue
    }
    const fieldsOf = structuredClone(bag as { [key: string]: JsonValue })
    for (const key of Object.keys(fieldsOf).filter((key) => SKILL_OWN_KEYS.includes(key))) {
      findings.error('skill-harness-field-reserved', `${label}'s harness.${id} sets "${key}", which compile writes from the skill's own fields.`, `Set it on the skill itself (${key === 'allowed-tools' ? 'allowedTools' : key === 'disable-model-invocation' ? 'modelInvocation: false' : key}), where every harness reads it.`, at)
    }
    own[id as Harness] = fieldsOf
  }
  checkSharedFolders(skill, own, folders, findings)
  return { fields, harness: own }
}

/** Reports a key two harnesses served from one folder's SKILL.md set to different values. */
function checkSharedFolders(skill: SkillDefinition, own: PlannedSkill['harness'], folders: ReadonlyMap<SkillFolder, readonly Harness[]>, findings: Findings): void {
  for (const [folder, served] of folders) {
    const setBy = new Map<string, Harness>()
    for (const id of served) {
      for (const [key, value] of Object.entries(own[id] ?? {})) {
        const first = setBy.get(key)
        if (first === undefined) setBy.set(key, id)
        else if (JSON.stringify(own[first]![key]) !== JSON.stringify(value)) {
          findings.error(
            'skill-harness-conflict',
            `Skill "${skill.name}" sets "${key}" to one value for ${harness(first).title} and another for ${harness(id).title}, which read the same ${folder}/${skill.name}/SKILL.md.`,
            `Give "${key}" the same value for both, or leave ${first} or ${id} out of the harnesses.`,
            skill.source,
          )
        }
      }
    }
  }
}

/** SKILL.md's keys besides name, description and the generated ones, for the harnesses `served` from one folder. */
export function skillFrontmatterFields(skill: PlannedSkill, served: readonly Harness[]): { [key: string]: JsonValue } {
  return Object.assign({}, ...served.map((id) => skill.harness[id] ?? {}))
}
