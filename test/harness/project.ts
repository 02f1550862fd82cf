import { execFile, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { parse as parseToml } from 'smol-toml'
import { Compiler } from '../../src/api.js'
import type { Plan } from '../../src/compile/plan.js'
import { writeOutputs } from '../../src/write/index.js'
import { copyProject } from '../util/project.js'

/** The sub-agent tier's project: two sub-agents with three tools each, none shared (test/harness/fixtures/subagents). */
export const fixture = resolve(import.meta.dirname, 'fixtures/subagents')
export const AGENT_TOOLS: Record<string, string[]> = {
  reviewer: ['word_count', 'shout', 'explode'],
  planner: ['add', 'sort_words', 'slugify'],
}
export const ALL_TOOLS = Object.values(AGENT_TOOLS).flat()

/**
 * Copies the fixture into a temp folder (a git repository: Codex finds `.codex/` by its git root)
 * and compiles it there with the real pipeline, the Codex main-agent block included.
 */
export async function subagentProject(prefix: string): Promise<{ dir: string; plan: Plan }> {
  const dir = await copyProject(fixture, prefix)
  await promisify(execFile)('git', ['init', '-q', dir])
  const compiler = new Compiler(dir)
  try {
    const generated = await compiler.generate({ registry: 'agents/registry.ts:registry', config: 'test', codexConfig: true })
    const report = await writeOutputs(generated.files, { target: dir, mode: 'write', force: false, owner: generated.plan.serverName })
    const errors = report.diagnostics.filter((d) => d.severity === 'error')
    if (errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'))
    return { dir, plan: generated.plan }
  } finally {
    await compiler.dispose()
  }
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

/** The prompt of an agent's generated file, for the harnesses with agent files. */
export async function agentPrompt(dir: string, harness: 'claude' | 'opencode' | 'codex', agent: string): Promise<string> {
  if (harness === 'claude') return readFile(join(dir, '.claude/agents', `${agent}.md`), 'utf8')
  if (harness === 'opencode') return readFile(join(dir, '.opencode/agent', `${agent}.md`), 'utf8')
  const role = parseToml(await readFile(join(dir, '.codex/agents', `${agent}.toml`), 'utf8')) as { developer_instructions: string }
  return role.developer_instructions
}

/** What a tool script prints for an input when run directly: what every harness must hand back. */
export async function direct(dir: string, tool: string, input: Record<string, unknown>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return bounded('node', [join(dir, 'scripts', `${tool}.mjs`), '--json'], { cwd: dir, env: process.env, stdin: JSON.stringify(input), timeoutMs: 30_000 })
}

/** Runs a command to its end, killed (and reported) past `timeoutMs`: every harness run is bounded. */
export function bounded(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      // The whole process group: harness CLIs start MCP servers and tool scripts of their own.
      process.kill(-child.pid!, 'SIGKILL')
      // A process outside the group may still hold the pipes open: stop reading them.
      child.stdout.destroy()
      child.stderr.destroy()
    }, options.timeoutMs)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      // Whatever the CLI left running of its own (an MCP server, a tool script) goes with it.
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // The group is already gone.
      }
      resolveRun({ code, stdout, stderr, timedOut })
    })
    child.stdin.end(options.stdin ?? '')
  })
}
