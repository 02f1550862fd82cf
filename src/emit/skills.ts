import { harness } from '../compile/harnesses/index.js'
import type { SkillFolder } from '../compile/harnesses/types.js'
import type { Plan, PlannedSkill, PlannedTool } from '../compile/plan.js'
import { skillFrontmatterFields } from '../compile/skill-fields.js'
import { skillFolders } from '../compile/skills.js'
import { type SkillLauncher, targetOf } from '../compile/target.js'
import type { Harness, JsonValue } from '../define/types.js'
import { jsLineComment, jsString, markdownWithFrontmatter } from './codegen/escape.js'
import { renderCommandDocs, toolsByName } from './codegen/prompt-docs.js'
import type { OwnedFile } from './types.js'

/**
 * Every skill's folder in each skills folder the plan's harnesses need (`skillFolders`): SKILL.md
 * (the Agent Skills format, its tools documented as commands), its extra files, a launcher per tool,
 * and the file a harness reads to keep a user-only skill from its model. Driven by each harness's
 * `skills` description; pure.
 */
export function emitSkills(plan: Plan): OwnedFile[] {
  const skills = plan.skills ?? []
  if (skills.length === 0) return []
  return [...skillFolders(plan.harnesses)].flatMap(([folder, served]) => skillsIn(plan, folder, served))
}

/** Every skill of the plan in `folder` (a project's skills folder, or a plugin's), for the harnesses `served` that read it. */
export function skillsIn(plan: Plan, folder: SkillFolder | string, served: readonly Harness[]): OwnedFile[] {
  return (plan.skills ?? []).flatMap((skill) => skillFiles(plan, skill, folder, served))
}

function skillFiles(plan: Plan, skill: PlannedSkill, folder: string, served: readonly Harness[]): OwnedFile[] {
  const dir = `${folder}/${skill.name}`
  const byName = toolsByName(plan.tools)
  const tools = skill.tools.map((name) => byName.get(name)).filter((tool): tool is PlannedTool => tool !== undefined)
  const files: OwnedFile[] = [{ kind: 'owned', path: `${dir}/SKILL.md`, content: skillMarkdown(plan, skill, dir, tools, served) }]
  // A copy of each script where the target's skills need one (not in a home: commands there name the scripts from `~`).
  const { skillLauncher } = targetOf(plan)
  if (skillLauncher) for (const tool of tools) files.push({ kind: 'owned', path: `${dir}/${tool.script}`, content: skillLauncherScript(skillLauncher, skill.name, `${dir}/${tool.script}`, tool.script) })
  if (!skill.modelInvocation) {
    for (const id of served) {
      const { userOnly } = harness(id).skills
      if ('file' in userOnly && !files.some((file) => file.path === `${dir}/${userOnly.file}`)) files.push({ kind: 'owned', path: `${dir}/${userOnly.file}`, content: userOnly.content })
    }
  }
  for (const [path, content] of Object.entries(skill.files)) files.push({ kind: 'owned', path: `${dir}/${path}`, content })
  return files
}

function skillMarkdown(plan: Plan, skill: PlannedSkill, dir: string, tools: readonly PlannedTool[], served: readonly Harness[]): string {
  const target = targetOf(plan)
  const scripts = tools.map((tool) => target.commandPath(tool.script))
  const allowedTools = allowedToolsField(skill.fields['allowed-tools'], generatedAllowedTools(served, scripts, target.skillLauncher ? dir : undefined))
  const frontmatter: { [key: string]: JsonValue } = {
    name: skill.name,
    description: skill.description,
    ...skill.fields,
    // Read where a harness reads it (SkillSupport.userOnly); the others pass over it.
    ...(skill.modelInvocation ? {} : { 'disable-model-invocation': true }),
    ...(allowedTools !== undefined ? { 'allowed-tools': allowedTools } : {}),
    // Compile has rejected a harness's key that would replace one of these (`skill-harness-field-reserved`).
    ...skillFrontmatterFields(skill, served),
  }
  let body = renderCommandDocs(plan, skill.instructions, skill.tools, target.skillRunFrom)
  for (const id of served) body = harness(id).skills.syntax?.escape?.(body) ?? body
  return markdownWithFrontmatter(frontmatter, body)
}

/**
 * The rules the `served` harnesses read in a skill's `allowed-tools` that let its own commands run
 * unasked (their descriptions' `skills.allowedTools`): `scripts` as the commands name them, and their
 * copies in the skill's `folder` where it has copies. The import makes them again to leave them out of
 * a compiled skill it reads back (src/import/compiled-allowed-tools.ts).
 */
export function generatedAllowedTools(served: readonly Harness[], scripts: readonly string[], folder: string | undefined): string[] {
  return scripts.length === 0 ? [] : served.flatMap((id) => harness(id).skills.allowedTools?.(scripts, folder) ?? [])
}

/** A skill's `allowed-tools`: the user's as written (a text or a list), then the `generated` rules. */
export function allowedToolsField(given: JsonValue | undefined, generated: readonly string[]): JsonValue | undefined {
  return Array.isArray(given) ? [...given, ...generated] : [...(typeof given === 'string' ? [given] : []), ...generated].join(', ') || undefined
}

/**
 * `<skill>/scripts/<tool>.mjs`: starts the target's `scripts/<tool>.mjs` as node would (its path as
 * `argv[1]`, which the script checks to run its command line), found relative to itself, so any folder
 * works: a project's in the project folder, so the tool sees the same working folder as when run from
 * there; a plugin's in the folder it is run from (the plugin folder is where the harness installed it,
 * not the user's work). The import makes it again to tell such a copy from a file of the user's
 * (src/import/compiled-files.ts).
 */
export function skillLauncherScript(copy: SkillLauncher, skill: string, path: string, script: string): string {
  const up = '../'.repeat(path.split('/').length - 1)
  return [
    `// ${jsLineComment(`Generated by unplugin-oac for the skill "${skill}": ${copy.runs(script)}`)}`,
    "import { fileURLToPath } from 'node:url'",
    '',
    `const ${copy.folder} = new URL(${jsString(up)}, import.meta.url)`,
    `const script = new URL(${jsString(script)}, ${copy.folder})`,
    ...(copy.chdir ? [`process.chdir(fileURLToPath(${copy.folder}))`] : []),
    'process.argv[1] = fileURLToPath(script)',
    'await import(script.href)',
    '',
  ].join('\n')
}
