import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { expect } from 'vitest'
import { ScriptBundler } from '../../src/bundle/index.js'
import type { PlanOptions } from '../../src/compile/config.js'
import { compilePlan } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { loadRegistry } from '../../src/load/index.js'
import { copyProject, repoRoot } from '../util/project.js'

export const MCP_FIXTURE = resolve(repoRoot, 'test/fixtures/mcp-tools')

export interface BuiltServer {
  plan: Plan
  /** A target folder holding only the generated scripts, away from the project and its node_modules. */
  target: string
  /** Removes the project copy and the target. */
  remove(): Promise<void>
}

/**
 * Loads, compiles (with `options`: a config, say) and bundles a fixture (the mcp-tools one by default)
 * with the real pipeline stages, and writes its scripts. `warnings` are the codes of the warnings its
 * compile must give, in order.
 */
export async function buildFixtureServer(fixture = MCP_FIXTURE, warnings: string[] = [], options: Omit<PlanOptions, 'root'> = {}): Promise<BuiltServer> {
  const root = await copyProject(fixture, 'oac-mcp-project-')
  const loaded = await loadRegistry('agents/registry.ts:registry', root)
  expect(loaded.diagnostics).toEqual([])
  const compiled = compilePlan(loaded, { ...options, root })
  expect(compiled.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(warnings.map((code) => `warning ${code}`))
  const plan = compiled.plan!
  const bundler = new ScriptBundler(root)
  try {
    const bundled = await bundler.build(plan)
    expect(bundled.diagnostics).toEqual([])
    const target = await mkdtemp(join(tmpdir(), 'oac-mcp-target-'))
    for (const file of bundled.files) {
      const path = join(target, ...file.path.split('/'))
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, file.content)
    }
    const remove = async () => {
      await rm(target, { recursive: true, force: true })
      await rm(root, { recursive: true, force: true })
    }
    return { plan, target, remove }
  } finally {
    await bundler.dispose()
  }
}

export interface Connection {
  client: Client
  transport: StdioClientTransport
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  close(): Promise<void>
}

/** Starts the server with the official SDK client over stdio; `clientName` is the name the client gives in `initialize`. */
export async function connect(
  target: string,
  options: { env?: Record<string, string>; command?: string; args?: string[]; cwd?: string; clientName?: string } = {},
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: options.command ?? process.execPath,
    args: options.args ?? ['scripts/mcp_tools_server.cjs'],
    cwd: options.cwd ?? target,
    env: { ...getDefaultEnvironment(), ...options.env },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const client = new Client({ name: options.clientName ?? 'oac-test', version: '0.0.0' })
  await client.connect(transport)
  return { client, transport, stderr: () => stderr, close: () => client.close() }
}

/** The single text block of a tool result. */
export function resultText(result: object): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? []
  expect(content).toHaveLength(1)
  expect(content[0]!.type).toBe('text')
  return content[0]!.text!
}

/** Polls until `check` returns a value (for effects that happen in another process), failing after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
