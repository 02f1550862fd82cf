import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { parse as parseToml } from 'smol-toml'
import { type CompileOptions, compile } from '../../src/api.js'
import { type BoundedRun, runBounded } from '../../src/bounded-run.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { copyProject, repoRoot } from '../util/project.js'

/** The sub-agent tier's project: two sub-agents with three tools each, none shared (test/harness/fixtures/subagents). */
export const fixture = resolve(import.meta.dirname, 'fixtures/subagents')
export const AGENT_TOOLS: Record<string, string[]> = {
  reviewer: ['word_count', 'shout', 'explode'],
  planner: ['add', 'sort_words', 'slugify'],
}
export const ALL_TOOLS = Object.values(AGENT_TOOLS).flat()

export interface CompiledProject {
  dir: string
  plan: Plan
  /** The build's warnings (a build with an error throws). */
  diagnostics: Diagnostic[]
}

/**
 * Copies a project (the playground, a fixture) into a temp folder, makes it a git repository (Codex
 * finds `.codex/` by its git root, Copilot reads `.mcp.json` up to it) and compiles it there with the
 * real pipeline, as a build would: what every file of the tier starts from. The caller removes `dir`.
 */
export async function compiledProject(source: string, prefix: string, options: Omit<CompileOptions, 'registry' | 'root'>): Promise<CompiledProject> {
  const dir = await copyProject(source, prefix)
  await promisify(execFile)('git', ['init', '-q', dir])
  const { plan, diagnostics } = await compile({ root: dir, registry: 'agents/registry.ts:registry', ...options })
  return { dir, plan, diagnostics }
}

/** The playground compiled for `harnesses` with its `prod` config (the proofs of each harness's list command). */
export function playgroundProject(prefix: string, harnesses?: Harness[]): Promise<CompiledProject> {
  return compiledProject(resolve(repoRoot, 'playground'), prefix, { config: 'prod', ...(harnesses ? { harnesses } : {}) })
}

/** The sub-agent tier's fixture compiled for every harness, the Codex main-agent block included. */
export function subagentProject(prefix: string): Promise<CompiledProject> {
  return compiledProject(fixture, prefix, { config: 'test', codexConfig: true })
}

/** A tool as an agent's prompt tells the model to call it. */
export interface DocumentedTool {
  name: string
  /** Where the harness shows tools in namespaces (Codex): the namespace the prompt names. */
  namespace?: string
}

/** The tools an agent's generated prompt tells the model to call ("Call the tool `NAME` (in the namespace `NS`)"), in order. */
export function documentedTools(prompt: string): DocumentedTool[] {
  return [...prompt.matchAll(/Call the tool `([^`]+)`(?: \(in the namespace `([^`]+)`\))?/g)].map((match) =>
    match[2] === undefined ? { name: match[1]! } : { name: match[1]!, namespace: match[2] },
  )
}

/** The prompt of an agent's generated file (`harness(id).agentFile`), for the harnesses with agent files. */
export async function agentPrompt(dir: string, id: Harness, agent: string): Promise<string> {
  const file = harness(id).agentFile
  if (!file) throw new Error(`${id} has no agent files`)
  const text = await readFile(join(dir, file(agent)), 'utf8')
  return file(agent).endsWith('.toml') ? (parseToml(text) as { developer_instructions: string }).developer_instructions : text
}

/** What a tool script prints for an input when run directly: what every harness must hand back. */
export async function direct(dir: string, tool: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<BoundedRun> {
  return bounded('node', [join(dir, 'scripts', `${tool}.mjs`), '--json'], { cwd: dir, env, stdin: JSON.stringify(input), timeoutMs: 30_000 })
}

/** The bound on every harness run: a run that needs longer has gone wrong (the slowest, Kilo's sub-agent conversation, takes minutes on a loaded machine). */
export const RUN_TIMEOUT_MS = 240_000

export type { BoundedRun }

/** Runs a command to its end, killed (and reported) past `timeoutMs`: every harness run is bounded. */
export function bounded(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs: number },
): Promise<BoundedRun> {
  // The whole process group goes at the end or past the bound: harness CLIs start MCP servers and tool scripts of their own.
  return runBounded(command, args, { cwd: options.cwd, env: options.env, timeoutMs: options.timeoutMs, input: options.stdin ?? '' })
}
