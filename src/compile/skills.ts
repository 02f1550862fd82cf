import { type AnyToolDefinition, type Harness, HARNESSES, type RegistryDefinition, type SkillDefinition, type SourceLocation } from '../define/types.js'
import type { TextOwner } from '../load/prompts.js'
import type { Findings } from './findings.js'
import { isSkill, isTool } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import type { SkillFolder, TextSyntax } from './harnesses/types.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import { skillNameProblem } from './names.js'
import type { PlannedSkill, PlannedTool } from './plan.js'
import { registryList } from './registry-lists.js'
import { planSkillFields } from './skill-fields.js'
import { plannedSource } from './source.js'
import type { CollectedTools } from './tools.js'

/*
 * Skills: checked against the Agent Skills format (agentskills.io: the name is the folder's, 1-64
 * lowercase letters, digits and single hyphens, neither first nor last; the description 1-1,024
 * characters), and placed so that every harness shows each skill once (see `skillFolders`).
 */

const DESCRIPTION_CAP = 1024

/** The folder read by most harnesses (the Agent Skills standard's): a harness that reads it is served from it. */
const SHARED_FOLDER: SkillFolder = '.agents/skills'

/**
 * The skills folders written for `harnesses`, each with the harnesses served from it: `.agents/skills`
 * for every harness that reads it, its own folder for one that does not (Claude Code: `.claude/skills`).
 * A harness that reads both written folders shows a skill of both once (`SkillSupport.folders`).
 */
export function skillFolders(harnesses: readonly Harness[]): Map<SkillFolder, Harness[]> {
  const folders = new Map<SkillFolder, Harness[]>()
  for (const id of harnesses) {
    const { folders: read } = harness(id).skills
    const folder = read.includes(SHARED_FOLDER) ? SHARED_FOLDER : read[0]!
    folders.set(folder, [...(folders.get(folder) ?? []), id])
  }
  return folders
}

/** A skill's extra file path: relative, POSIX, inside the folder, not a file unplugin-oac writes there. */
function filePathProblem(path: string, reserved: readonly string[]): string | undefined {
  if (path === '' || path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.includes('\\')) return 'must be a relative path with "/" between folders'
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return 'must stay inside the skill\'s folder (no empty, "." or ".." parts)'
  if (reserved.includes(path)) return 'is a file unplugin-oac writes in the skill\'s folder'
  return undefined
}

/** The registry's skills made by defineSkill, each name once; anything else is reported. */
export function registrySkills(registry: RegistryDefinition, findings: Findings): SkillDefinition[] {
  return registryList(registry, registry.skills, { key: 'skills', noun: 'skill', is: isSkill, made: 'defineSkill({ name, description, instructions })', unique: 'each skill is one folder' }, findings)
}

/**
 * Adds the skills' tools to the collected tools (a name resolves to a registry tool; a definition
 * reached twice is one tool), and returns each skill's own. Its tools get scripts like any other.
 */
export function collectSkillTools(skills: readonly SkillDefinition[], registry: RegistryDefinition, collected: CollectedTools, findings: Findings): Map<SkillDefinition, AnyToolDefinition[]> {
  const registryNames = new Map((Array.isArray(registry.tools) ? registry.tools : []).filter(isTool).map((tool) => [tool.name, tool]))
  const bySkill = new Map<SkillDefinition, AnyToolDefinition[]>()
  for (const skill of skills) {
    const own: AnyToolDefinition[] = []
    const entries: readonly unknown[] = Array.isArray(skill.tools) ? skill.tools : []
    entries.forEach((entry, i) => {
      const tool = typeof entry === 'string' ? registryNames.get(entry) : entry
      if (typeof entry === 'string' && !tool) {
        findings.error('skill-tool-unknown', `Skill "${skill.name}" names the tool "${entry}", which the registry's tools do not define.`, 'Add the tool to defineRegistry({ tools: [...] }), or pass its definition in the skill\'s tools.', skill.source)
        return
      }
      if (!isTool(tool)) {
        findings.error('definition-invalid', `Skill "${skill.name}"'s tools[${i}] is not a tool made by defineTool.`, "Create tools with defineTool({ name, description, input, run }) from 'unplugin-oac'.", skill.source)
        return
      }
      const existing = collected.tools.find((other) => other.name === tool.name)
      if (existing && existing !== tool) {
        findings.error('tool-duplicate', `Two different tools are named "${tool.name}": this one and the one at ${findings.where(existing.source)}.`, 'Rename one of them, or import and reuse the same definition.', tool.source)
        return
      }
      if (!existing) collected.tools.push(tool)
      if (!own.includes(tool)) own.push(tool)
    })
    bySkill.set(skill, own)
  }
  return bySkill
}

/** The first text `syntax` does not show as written (after its escape), or undefined. */
export function unescapable(text: string, syntax: TextSyntax): { found: string; meaning: string } | undefined {
  for (const { pattern, meaning } of syntax.special) {
    const match = pattern.exec(text)
    if (match) return { found: match[0], meaning }
  }
  return undefined
}

export interface SkillInputs {
  texts: ReadonlyMap<TextOwner, string>
  tools: readonly AnyToolDefinition[]
  harnesses: readonly Harness[]
  root: string
}

const SKILL_IDENTITY: IdentityRules = {
  noun: 'skill',
  nameProblem: skillNameProblem,
  nameFix: 'Rename the skill to lowercase words joined by hyphens, e.g. "weather-reports": it is the name of its folder.',
  descriptionFix: 'Say what the skill does and when to use it: harnesses pick a skill by its description.',
}

/** Checks one skill and turns it into its planned form (undefined when it cannot be planned). */
export function planSkill(skill: SkillDefinition, inputs: SkillInputs, planned: readonly PlannedTool[], findings: Findings): PlannedSkill | undefined {
  const at: SourceLocation = skill.source
  const label = `Skill "${skill.name}"`
  const errorsBefore = findings.diagnostics.filter((d) => d.severity === 'error').length
  checkIdentity(skill, SKILL_IDENTITY, at, findings)
  if (typeof skill.description === 'string' && skill.description.length > DESCRIPTION_CAP) {
    findings.error('skill-description-long', `${label}'s description is ${skill.description.length} characters; the Agent Skills format allows ${DESCRIPTION_CAP}.`, `Shorten it to ${DESCRIPTION_CAP} characters at most, and move the details into the instructions.`, at)
  }
  const instructions = inputs.texts.get(skill)
  if (instructions === undefined) {
    findings.error('skill-instructions-invalid', `${label}'s instructions are neither text nor { file }.`, "Set instructions to the text, or to { file: './skill.md' } (next to this module).", at)
  }
  if (typeof skill.modelInvocation !== 'boolean') {
    findings.error('skill-field-invalid', `${label}'s modelInvocation is not true or false.`, 'Leave it out (the model may start the skill), or set it to false (only the user starts it).', at)
  }

  // SKILL.md, the launchers at the tools' script paths, and a harness's user-only file.
  const scripts = inputs.tools.flatMap((tool) => planned.filter((p) => p.name === tool.name).map((p) => p.script))
  const reserved = ['SKILL.md', ...scripts, ...userOnlyFiles()]
  const files: Record<string, string> = {}
  const entries = typeof skill.files === 'object' && skill.files !== null ? Object.entries(skill.files) : []
  for (const [path, file] of entries) {
    const problem = filePathProblem(path, reserved)
    const text = typeof file === 'string' ? file : typeof file === 'object' && file !== null ? inputs.texts.get(file) : undefined
    if (problem) findings.error('skill-file-invalid', `${label}'s file "${path}" ${problem}.`, 'Name each file by its path inside the skill\'s folder, e.g. "templates/report.md".', at)
    else if (text === undefined && (typeof file !== 'object' || file === null || typeof (file as { file?: unknown }).file !== 'string')) {
      findings.error('skill-file-invalid', `${label}'s file "${path}" is neither text nor { file }.`, "Give the file's text, or { file: './template.md' } (next to this module).", at)
    } else if (text !== undefined) files[path] = text
  }

  if (instructions !== undefined) checkSkillText(skill, [instructions, ...inputs.tools.flatMap((tool) => [tool.description, JSON.stringify(planned.find((p) => p.name === tool.name)?.schema ?? {})])], inputs.harnesses, findings)
  if (skill.modelInvocation === false) warnUserOnly(skill, inputs.harnesses, findings)
  const { fields, harness: own } = planSkillFields(skill, skillFolders(inputs.harnesses), findings)
  if (findings.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined
  return {
    name: skill.name,
    description: skill.description,
    instructions: instructions!,
    tools: inputs.tools.map((tool) => tool.name),
    files,
    modelInvocation: skill.modelInvocation,
    fields,
    harness: own,
    source: plannedSource(inputs.root, at),
  }
}

/** Files some harness reads in a skill's folder to keep it from the model (Codex's `agents/openai.yaml`). */
function userOnlyFiles(): string[] {
  return [...new Set(HARNESSES.map((id) => harness(id).skills.userOnly).flatMap((userOnly) => ('file' in userOnly ? [userOnly.file] : [])))]
}

/** Reports SKILL.md text that a selected harness would read as its own syntax (Claude Code's `!`cmd``). */
function checkSkillText(skill: SkillDefinition, texts: readonly string[], harnesses: readonly Harness[], findings: Findings): void {
  for (const id of harnesses) {
    const { syntax } = harness(id).skills
    if (!syntax) continue
    const found = texts.map((text) => unescapable(text, syntax)).find((hit) => hit !== undefined)
    if (!found) continue
    findings.error(
      'skill-placeholder',
      `Skill "${skill.name}"'s instructions (or the description of one of its tools) contain \`${found.found}\`, which ${harness(id).title} reads as its own syntax when it loads the skill: there it ${found.meaning}.`,
      `Write it another way (e.g. inside a code block, or with a space after "!"), or leave ${id} out of the harnesses.`,
      skill.source,
    )
  }
}

/** One warning per user-only skill for the selected harnesses that cannot keep it from their model. */
function warnUserOnly(skill: SkillDefinition, harnesses: readonly Harness[], findings: Findings): void {
  const unable = harnesses.filter((id) => 'unsupported' in harness(id).skills.userOnly)
  if (unable.length === 0) return
  const reasons = [...new Set(unable.map((id) => (harness(id).skills.userOnly as { unsupported: string }).unsupported))]
  findings.warning(
    'skill-user-only-unsupported',
    `Skill "${skill.name}" sets modelInvocation: false, but ${unable.map((id) => harness(id).title).join(', ')} may still start it on the model's own choice (${reasons.join('; ')}).`,
    `Accept it, or leave ${unable.join(', ')} out of the harnesses.`,
    skill.source,
  )
}
