import { harness } from '../compile/harnesses/index.js'
import { type Plan, scriptsFolder } from '../compile/plan.js'
import type { Harness } from '../define/types.js'
import type { OutputFile } from './types.js'

/*
 * A user-scope install (`--scope user`): the emitters write a project's files, and each moves to where
 * the harnesses that read it read the same file in a home (their descriptions' `userScope`). One project
 * file may become two (`.mcp.json` is Claude Code's `~/.claude.json` and Copilot's
 * `~/.copilot/mcp-config.json`) or none (VS Code's, which a home does not hold). What a file says about
 * a script's place does not depend on it: in a home every file names its scripts from the home folder.
 */

/** The harness-neutral prompts' folder in a project. */
const PROMPTS = 'prompts/'

/** Every file of a project's tree at its places in a home, for the plan's harnesses. */
export function userScopeFiles(plan: Plan, files: readonly OutputFile[]): OutputFile[] {
  const placed = new Map<string, OutputFile>()
  for (const file of files) {
    const homes = homePaths(plan, file.path)
    if (homes === undefined) throw new Error(`No harness of ${plan.harnesses.join(', ')} says where ${file.path} goes in a home: a userScope entry is missing from its description.`)
    // Two harnesses that read one project file from the same home file get it once.
    for (const path of homes) if (!placed.has(path)) placed.set(path, { ...file, path })
  }
  return [...placed.values()]
}

/** Its home paths, none for a file no selected harness reads from a home; undefined when no harness says. */
function homePaths(plan: Plan, path: string): string[] | undefined {
  if (path.startsWith(PROMPTS)) return [`${scriptsFolder(plan)}/${path}`]
  const homes = plan.harnesses.flatMap((id) => moved(harness(id).userScope.paths, path) ?? [])
  if (homes.length > 0) return homes
  const left = plan.harnesses.some((id) => harness(id).userScope.left?.some((entry) => isUnder(path, entry.project)))
  return left ? [] : undefined
}

/** Where harness `id` reads, in a home, the file it reads at `path` in a project; undefined where it reads none there. */
export function homePath(id: Harness, path: string): string | undefined {
  return moved(harness(id).userScope.paths, path)
}

function moved(paths: ReadonlyArray<readonly [string, string]>, path: string): string | undefined {
  for (const [project, home] of paths) if (isUnder(path, project)) return home + path.slice(project.length)
  return undefined
}

/** True when `path` is the file `prefix` names, or lies in the folder it names (ending in `/`). */
function isUnder(path: string, prefix: string): boolean {
  return prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix
}
