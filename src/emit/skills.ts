import { harness } from '../compile/harnesses/index.js'
import type { SkillFolder } from '../compile/harnesses/types.js'
import { type Plan, type PlannedSkill, type PlannedTool, scriptCommandPath } from '../compile/plan.js'
import { skillFolders } from '../compile/skills.js'
import type { Harness, JsonValue } from '../define/types.js'
import { jsLineComment, jsString, markdownWithFrontmatter } from './codegen/escape.js'
import { renderCommandDocs, toolsByName } from './codegen/prompt-docs.js'
import type { OwnedFile } from './types.js'

/**
 * How a skill's tool docs say where their commands run. A skill's folder holds a copy of each tool's
 * script path (`<skill>/scripts/<tool>.mjs`), so `node scripts/<tool>.mjs` works read either way:
 * from the project folder, and (as harnesses tell their models to read a skill's relative paths)
 * from the skill's folder, which works from any folder.
 */
const RUN_FROM_SKILL =
  "Run it from the project folder, or from any folder with this skill's folder before `scripts/` (the skill's copy starts the same tool in the project folder):"

/** The same for a plugin's skill, whose tools' scripts are the plugin's: only the skill's copy finds them. */
const RUN_FROM_PLUGIN_SKILL = "Run it with this skill's folder before `scripts/`, from the folder the tool should work in:"

/** The same for a user's skill, whose commands name the scripts from the home folder. */
const RUN_FROM_USER_SKILL = 'Run it from the folder the tool should work in:'

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
  // A user's skill needs no copies: its commands name the scripts from `~`, which works from any folder.
  if (plan.scope !== 'user') for (const tool of tools) files.push({ kind: 'owned', path: `${dir}/${tool.script}`, content: launcher(plan, skill, `${dir}/${tool.script}`, tool.script) })
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
  const allowed = tools.length === 0 ? [] : served.flatMap((id) => harness(id).skills.allowedTools?.(tools.map((tool) => scriptCommandPath(tool.script)), plan.scope === 'user' ? undefined : dir) ?? [])
  const frontmatter: { [key: string]: JsonValue } = {
    name: skill.name,
    description: skill.description,
    // Read where a harness reads it (SkillSupport.userOnly); the others pass over it.
    ...(skill.modelInvocation ? {} : { 'disable-model-invocation': true }),
    ...(allowed.length > 0 ? { 'allowed-tools': allowed.join(', ') } : {}),
  }
  let body = renderCommandDocs(plan, skill.instructions, skill.tools, plan.plugin ? RUN_FROM_PLUGIN_SKILL : plan.scope === 'user' ? RUN_FROM_USER_SKILL : RUN_FROM_SKILL)
  for (const id of served) body = harness(id).skills.syntax?.escape?.(body) ?? body
  return markdownWithFrontmatter(frontmatter, body)
}

/**
 * `<skill>/scripts/<tool>.mjs`: starts the project's `scripts/<tool>.mjs` as node would (its path as
 * `argv[1]`, which the script checks to run its command line), in the project folder, so the tool
 * sees the same working folder as when run from there; found relative to itself, so any folder works.
 * A plugin's skill starts the plugin's script in the folder it is run from: the plugin folder is
 * where the harness installed it, not the user's work.
 */
function launcher(plan: Plan, skill: PlannedSkill, path: string, script: string): string {
  const up = '../'.repeat(path.split('/').length - 1)
  const where = plan.plugin ? `runs the plugin's ${script} in the folder it is run from.` : `runs the project's ${script} in the project folder, from any folder.`
  return [
    `// ${jsLineComment(`Generated by unplugin-oac for the skill "${skill.name}": ${where}`)}`,
    "import { fileURLToPath } from 'node:url'",
    '',
    `const ${plan.plugin ? 'root' : 'project'} = new URL(${jsString(up)}, import.meta.url)`,
    `const script = new URL(${jsString(script)}, ${plan.plugin ? 'root' : 'project'})`,
    ...(plan.plugin ? [] : ['process.chdir(fileURLToPath(project))']),
    'process.argv[1] = fileURLToPath(script)',
    'await import(script.href)',
    '',
  ].join('\n')
}
