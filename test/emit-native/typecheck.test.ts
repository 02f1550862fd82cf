import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Plan, PlannedHook } from '../../src/compile/plan.js'
import { HOOK_EVENTS } from '../../src/define/hooks.js'
import { emitHooks } from '../../src/emit/hooks.js'
import { emitKilo } from '../../src/emit/kilo.js'
import { emitPi } from '../../src/emit/pi.js'
import type { OutputFile } from '../../src/emit/types.js'
import { emitNative, fixturePlan, linkedTempDir, richFixtureRoot, run, writeFiles } from './fixture.js'

const repoRoot = resolve(import.meta.dirname, '../..')

/*
 * oh-my-pi's package only installs under bun (Node 20 cannot), so its factory type is declared here
 * from its custom-tools/types.ts (18.2.3): the fields our factories set, the execute order, the
 * result and approval types (pi-agent-core/src/types.ts, pi-ai's ImageContent), and the builders of
 * pi.zod (omptype/src/zod.ts) with exactly the methods omptype has.
 */
const OMP_TYPES = `declare module "@oh-my-pi/pi-coding-agent" {
  interface ZodLike {
    min(bound: number): ZodLike
    max(bound: number): ZodLike
    int(): ZodLike
    positive(): ZodLike
    nonnegative(): ZodLike
    regex(expression: RegExp): ZodLike
    url(): ZodLike
    optional(): ZodLike
    nullable(): ZodLike
    default(value: unknown): ZodLike
    describe(description: string): ZodLike
    strict(): ZodLike
    passthrough(): ZodLike
  }
  interface Zod {
    string(): ZodLike
    number(): ZodLike
    boolean(): ZodLike
    literal(value: string | number | boolean | null): ZodLike
    enum(values: readonly [string, ...string[]]): ZodLike
    union(schemas: readonly [ZodLike, ZodLike, ...ZodLike[]]): ZodLike
    array(element: ZodLike): ZodLike
    object(shape: Record<string, ZodLike>): ZodLike
    record(value: ZodLike): ZodLike
    record(key: ZodLike, value: ZodLike): ZodLike
    unknown(): ZodLike
    any(): ZodLike
    null(): ZodLike
  }
  interface AgentToolResult {
    content: Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }>
    details?: unknown
    isError?: boolean
  }
  type ToolTier = "read" | "write" | "exec"
  type ToolApprovalDecision = ToolTier | { tier: ToolTier; reason?: string; override?: boolean; policy?: "allow" | "deny" | "prompt"; policyKey?: string }
  export interface CustomToolAPI {
    cwd: string
    zod: Zod
  }
  export interface CustomTool {
    name: string
    label: string
    description: string
    loadMode?: "essential" | "discoverable"
    parameters: ZodLike
    approval?: ToolApprovalDecision | ((args: unknown) => ToolApprovalDecision)
    execute(
      toolCallId: string,
      params: Record<string, unknown>,
      onUpdate: ((partial: AgentToolResult) => void) | undefined,
      ctx: { isIdle(): boolean },
      signal?: AbortSignal,
    ): Promise<AgentToolResult>
  }
  export type CustomToolFactory = (pi: CustomToolAPI) => CustomTool | CustomTool[] | Promise<CustomTool | CustomTool[]>
}
`

const COMPILER_OPTIONS = {
  target: 'ES2023',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2023'],
  types: ['node'],
  strict: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
}

/**
 * Writes the files into a project linked to our node_modules (so the real type packages resolve) and
 * runs tsc on exactly those files: dot-folders like `.opencode/` are not matched by include globs.
 */
async function typecheck(files: readonly OutputFile[]): Promise<{ code: number | null; output: string }> {
  const project = await linkedTempDir()
  try {
    return await typecheckIn(project, files)
  } finally {
    await rm(project, { recursive: true, force: true })
  }
}

async function typecheckIn(project: string, files: readonly OutputFile[]): Promise<{ code: number | null; output: string }> {
  await writeFiles(files, project)
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }))
  await mkdir(join(project, 'types'), { recursive: true })
  await writeFile(join(project, 'types/omp.d.ts'), OMP_TYPES)
  const inputs = [...files.map((file) => file.path).filter((path) => path.endsWith('.ts')), 'types/omp.d.ts']
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files: inputs }, null, 2))
  const result = await run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(project, 'tsconfig.json'), '--listFilesOnly'], { cwd: project })
  const listed = result.stdout.split('\n').map((line) => line.trim())
  // Make sure tsc really reads every generated file before trusting a clean run.
  for (const input of inputs) expect(listed, input).toContain(join(project, input))
  const checked = await run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(project, 'tsconfig.json')], { cwd: project })
  return { code: checked.code, output: checked.stdout + checked.stderr }
}

function tsFiles(plan: Plan): OutputFile[] {
  return emitNative(plan).filter((file) => file.path.endsWith('.ts'))
}

describe('generated TypeScript type-checks against the real type packages', () => {
  it.each(['process', 'inline'] as const)('with the %s bridge (@opencode-ai/plugin 1.18.33, @mariozechner/pi-coding-agent 0.73.1)', async (bridge) => {
    const files = tsFiles(await fixturePlan({ bridge }))
    expect(files.map((file) => file.path)).toEqual([
      '.opencode/tool/forecast.ts',
      '.opencode/tool/add_note.ts',
      '.opencode/tool/count.ts',
      '.opencode/tool/explode.ts',
      '.pi/extensions/oac-tools.ts',
      '.omp/tools/forecast/index.ts',
      '.omp/tools/add_note/index.ts',
      '.omp/tools/count/index.ts',
      '.omp/tools/explode/index.ts',
    ])
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it.each(['process', 'inline'] as const)('Kilo shims with the %s bridge (@kilocode/plugin 7.3.1)', async (bridge) => {
    const files = emitKilo(await fixturePlan({ bridge, harnesses: ['kilo'] })).filter((file) => file.path.endsWith('.ts'))
    expect(files.map((file) => file.path)).toEqual(['.kilo/tools/forecast.ts', '.kilo/tools/add_note.ts', '.kilo/tools/count.ts', '.kilo/tools/explode.ts'])
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
    // The same check fails on a shim written against another context.
    const broken = files.map((file) => (file.kind === 'owned' ? { ...file, content: file.content.replace('signal: context.abort,', 'signal: context.aborted,') } : file))
    expect((await typecheck(broken)).output).toContain("Property 'aborted' does not exist")
  })

  it.each(['process', 'inline'] as const)('with rich results and approval rules (pi confirms, omp approval tiers), %s bridge, Kilo too', async (bridge) => {
    const plan = await fixturePlan({ bridge }, richFixtureRoot)
    expect(plan.tools.map((tool) => tool.approval)).toEqual(['allow', 'allow', undefined, undefined, 'ask'])
    const files = [...tsFiles(plan), ...emitKilo(plan).filter((file) => file.path.endsWith('.ts'))]
    const pi = files.find((file) => file.path === '.pi/extensions/oac-tools.ts')
    expect(pi?.kind === 'owned' && pi.content).toContain('await confirmCall(ctx, "erase", params)')
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it('the hook plugins (opencode, Kilo) and extensions (pi, omp), a hook on each event', async () => {
    const plan = await fixturePlan({ harnesses: ['opencode', 'kilo', 'pi', 'omp'] })
    const hooks = HOOK_EVENTS.map((on): PlannedHook => ({
      name: `on-${on}`,
      description: `Runs on ${on}.`,
      on,
      onError: 'block',
      timeoutMs: 10_000,
      source: { file: 'agents/hooks.ts', line: 3, column: 14 },
      script: `scripts/hooks/on-${on}.mjs`,
    }))
    const files = emitHooks({ ...plan, hooks })
    expect(files.map((file) => file.path)).toEqual(['.opencode/plugins/oac-tools-hooks.ts', '.pi/extensions/oac-tools-hooks.ts', '.omp/extensions/oac-tools-hooks.ts', '.kilo/plugins/oac-tools-hooks.ts'])
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it("with tool titles (opencode's and Kilo's call title, pi's and omp's label)", async () => {
    const plan = await fixturePlan({}, resolve(repoRoot, 'test/fixtures/tool-titles'))
    const files = [...tsFiles(plan), ...emitKilo(plan).filter((file) => file.path.endsWith('.ts'))]
    expect(files.filter((file) => file.kind === 'owned' && file.content.includes('"Weather forecast"')).map((file) => file.path)).toEqual([
      '.opencode/tool/forecast.ts',
      '.pi/extensions/oac-tools.ts',
      '.omp/tools/forecast/index.ts',
      '.kilo/tools/forecast.ts',
    ])
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it("the MCP bridge's pi extension, and Kilo's plugin for the server its config cannot carry", async () => {
    const plan = await fixturePlan({ harnesses: ['pi', 'kilo'] }, resolve(repoRoot, 'test/fixtures/mcp-servers'), 'registries.ts#all')
    const files = [...emitPi(plan), ...emitKilo(plan)].filter((file) => file.path.endsWith('-mcp.ts'))
    expect(files.map((file) => file.path)).toEqual(['.pi/extensions/oac-tools-mcp.ts', '.kilo/plugins/oac-tools-mcp.ts'])
    const { code, output } = await typecheck(files)
    expect(output).toBe('')
    expect(code).toBe(0)
  })

  it('fails on shims that do not match the harness types (the check can fail)', async () => {
    const broken = tsFiles(await fixturePlan()).map((file) =>
      file.kind === 'owned'
        ? { ...file, content: file.content.replace('signal: context.abort,', 'signal: context.aborted,').replace('cwd: ctx.cwd,', 'cwd: ctx.directory,').replace('cwd: pi.cwd,', 'cwd: pi.dir,') }
        : file,
    )
    const { output } = await typecheck(broken)
    expect(output).toContain("Property 'aborted' does not exist")
    expect(output).toContain("Property 'directory' does not exist")
    expect(output).toContain("Property 'dir' does not exist")
  })
})
