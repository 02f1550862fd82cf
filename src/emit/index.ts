import type { Plan } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { Harness } from '../define/types.js'
import { emitClaude } from './claude.js'
import { emitCline } from './cline.js'
import { emitCommands } from './commands.js'
import { emitCodex } from './codex.js'
import { emitCopilot } from './copilot.js'
import { emitGemini } from './gemini.js'
import { emitKilo } from './kilo.js'
import { emitMcpServers } from './mcp-servers.js'
import { emitOmp } from './omp.js'
import { emitOpencode } from './opencode.js'
import { emitPi } from './pi.js'
import { emitPrompts } from './prompts.js'
import { emitQwen } from './qwen.js'
import { emitHooks } from './hooks.js'
import { emitPlugin } from './plugin/index.js'
import { emitRules } from './rules.js'
import { emitSkills } from './skills.js'
import { userScopeFiles } from './user-scope.js'
import type { MergeFile, OutputFile } from './types.js'

/** A harness's emitter: the files its description (src/compile/harnesses/<id>.ts) says it gets. Pure. */
export type HarnessEmitter = (plan: Plan) => OutputFile[]

/** Every harness's emitter; one line per harness, and a harness without one does not type-check. */
const EMITTERS = { opencode: emitOpencode, claude: emitClaude, codex: emitCodex, pi: emitPi, omp: emitOmp, gemini: emitGemini, copilot: emitCopilot, qwen: emitQwen, kilo: emitKilo, cline: emitCline } satisfies Record<Harness, HarnessEmitter>

/**
 * Every generated file but the bundled scripts: pure, so the same plan gives the same bytes anywhere.
 * Each kind of target has its tree: a project the harnesses' files; a plugin folder no project files
 * but its formats' (src/emit/plugin/); a user's home a project's files at the places each harness reads
 * them from there (src/emit/user-scope.ts).
 */
export function emitAll(plan: Plan): OutputFile[] {
  const target = targetOf(plan)
  switch (target.kind) {
    case 'project':
      return projectFiles(plan, emitRules(plan))
    case 'plugin':
      return emitPlugin({ ...plan, plugin: target.plugin })
    case 'home':
      return combineMerges([...userScopeFiles(plan.harnesses, target, projectFiles(plan)), ...emitRules(plan)])
  }
}

/** A project's files, with `rules` where they are a project's. Skills and commands are written below the emitters, from each harness's description. */
function projectFiles(plan: Plan, rules: OutputFile[] = []): OutputFile[] {
  return combineMerges([...emitPrompts(plan), ...plan.harnesses.flatMap((id) => EMITTERS[id](plan)), ...emitMcpServers(plan), ...emitSkills(plan), ...emitCommands(plan), ...emitHooks(plan), ...rules])
}

/**
 * One merge per file: a harness's settings get entries from several emitters (its MCP server and
 * approval rules, its hook registrations), which write into the file together.
 */
function combineMerges(files: OutputFile[]): OutputFile[] {
  const byPath = new Map<string, MergeFile[]>()
  for (const file of files) if (file.kind === 'merge') byPath.set(file.path, [...(byPath.get(file.path) ?? []), file])
  // A file of one merge is passed on as it is: the write stage knows a merge it planned before by its entries.
  if ([...byPath.values()].every((group) => group.length === 1)) return files
  return files.flatMap((file): OutputFile[] => {
    if (file.kind !== 'merge') return [file]
    const group = byPath.get(file.path)!
    if (group.length === 1) return [file]
    if (group[0] !== file) return []
    const strictJsonReader = group.find((merge) => merge.strictJsonReader)?.strictJsonReader
    return [{ ...file, entries: group.flatMap((merge) => merge.entries), ...(strictJsonReader && { strictJsonReader }) }]
  })
}
