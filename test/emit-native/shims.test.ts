import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTarget, fixturePlan, linkedTempDir, run } from './fixture.js'

/*
 * Each shim, run outside its harness with a stub of what the harness hands it, must return what the
 * tool script prints when run directly. The target links our node_modules so the shims' imports
 * (@opencode-ai/plugin, typebox) resolve as they do from a harness's own.
 */
const TOKEN = 'token-from-env'

interface Call {
  /** The folder the harness runs the tool in (a subfolder of the target: scripts are found from the shim). */
  cwd: string
  signal?: AbortSignal
  progress: string[]
}

type Runner = (tool: string, input: Record<string, unknown>, call: Call) => Promise<string>

interface ToolResult {
  content: Array<{ type: string; text: string }>
  details?: unknown
}

async function importShim(target: string, path: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(join(target, path)).href)) as Record<string, unknown>
}

/** opencode: `execute(args, context)` of `.opencode/tool/<tool>.ts`. */
function opencodeRunner(target: string): Runner {
  return async (tool, input, call) => {
    const shim = (await importShim(target, `.opencode/tool/${tool}.ts`)).default as {
      execute(args: unknown, context: unknown): Promise<string>
    }
    const context = {
      sessionID: 's',
      messageID: 'm',
      agent: 'planner',
      directory: call.cwd,
      worktree: target,
      abort: call.signal ?? new AbortController().signal,
      metadata: ({ title }: { title?: string }) => call.progress.push(title ?? ''),
      ask: async () => undefined,
    }
    return shim.execute(input, context)
  }
}

/** pi: the extension factory's `registerTool` calls, then `execute(id, params, signal, onUpdate, ctx)`. */
function piRunner(target: string): Runner {
  return async (tool, input, call) => {
    const factory = (await importShim(target, '.pi/extensions/oac-tools.ts')).default as (pi: unknown) => void
    const tools = new Map<string, { execute(...args: unknown[]): Promise<ToolResult> }>()
    factory({ registerTool: (definition: { name: string; execute(...args: unknown[]): Promise<ToolResult> }) => tools.set(definition.name, definition) })
    const onUpdate = (partial: ToolResult) => call.progress.push(partial.content[0]!.text)
    const result = await tools.get(tool)!.execute('call-1', input, call.signal, onUpdate, { cwd: call.cwd })
    expect(result.content).toHaveLength(1)
    return result.content[0]!.text
  }
}

/** A stand-in for omp's `pi.zod`: every builder call chains (the schema itself is checked with real omp in the harness tier). */
const anyBuilder: unknown = new Proxy(() => anyBuilder, { get: () => anyBuilder, apply: () => anyBuilder })

/** omp: the factory called with `pi`, then `execute(id, params, onUpdate, ctx, signal)`. */
function ompRunner(target: string): Runner {
  return async (tool, input, call) => {
    const factory = (await importShim(target, `.omp/tools/${tool}/index.ts`)).default as (pi: unknown) => {
      name: string
      execute(...args: unknown[]): Promise<ToolResult>
    }
    const definition = factory({ cwd: call.cwd, zod: anyBuilder })
    expect(definition.name).toBe(tool)
    const onUpdate = (partial: ToolResult) => call.progress.push(partial.content[0]!.text)
    const result = await definition.execute('call-1', input, onUpdate, {}, call.signal)
    return result.content[0]!.text
  }
}

/** The script run directly, as the bash route does: `node scripts/<tool>.mjs --json` with the input on stdin. */
async function direct(target: string, tool: string, input: Record<string, unknown>, cwd: string) {
  const result = await run('node', [join(target, 'scripts', `${tool}.mjs`), '--json'], { cwd, stdin: JSON.stringify(input) })
  const progress = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('oac:progress '))
    .map((line) => (JSON.parse(line.slice('oac:progress '.length)) as { message: string }).message)
  const errors = result.stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('oac:progress '))
    .join('\n')
  return { ...result, progress, errors }
}

const inputs: Array<[string, Record<string, unknown>]> = [
  ['forecast', { city: 'Oslo', days: 2, unit: 'f', coords: { lat: 59.9, lon: 10.7 }, stops: [{ name: 'a', nights: 1 }], tags: { x: 1 } }],
  ['add_note', { title: 'Pack', kind: 'todo', labels: ['trip', 'soon'] }],
  ['count', { to: 3 }],
]

for (const bridge of ['process', 'inline'] as const) {
  describe(`shims with the ${bridge} bridge`, () => {
    let target = ''
    let cwd = ''
    const previousToken = process.env.OAC_NATIVE_TOKEN

    beforeAll(async () => {
      target = await buildTarget(await fixturePlan({ bridge }), await linkedTempDir())
      cwd = join(target, 'sub')
      await mkdir(cwd)
      process.env.OAC_NATIVE_TOKEN = TOKEN
    })
    afterAll(async () => {
      if (previousToken === undefined) delete process.env.OAC_NATIVE_TOKEN
      else process.env.OAC_NATIVE_TOKEN = previousToken
      await rm(target, { recursive: true, force: true })
    })

    const runners: Array<[string, (target: string) => Runner]> = [
      ['opencode', opencodeRunner],
      ['pi', piRunner],
      ['omp', ompRunner],
    ]

    for (const [harness, makeRunner] of runners) {
      describe(harness, () => {
        it.each(inputs)('%s returns what the script prints, progress included', async (tool, input) => {
          const expected = await direct(target, tool, input, cwd)
          expect(expected.code).toBe(0)
          const call: Call = { cwd, progress: [] }
          const text = await makeRunner(target)(tool, input, call)
          expect(text).toBe(expected.stdout)
          expect(call.progress).toEqual(expected.progress)
        })

        it('runs the tool in the harness folder with the configured environment', async () => {
          const text = await makeRunner(target)('count', { to: 1 }, { cwd, progress: [] })
          expect(text).toBe(`counted to 1 in sub; token ${TOKEN}\n`)
        })

        it("rejects with the tool's error", async () => {
          const expected = await direct(target, 'explode', { reason: 'boom' }, cwd)
          expect(expected.code).toBe(1)
          const failure = makeRunner(target)('explode', { reason: 'boom' }, { cwd, progress: [] })
          await expect(failure).rejects.toThrow('exploded: boom')
          if (bridge === 'process') await expect(failure).rejects.toThrow(expected.errors)
        })

        it('rejects invalid input, naming the field', async () => {
          const expected = await direct(target, 'forecast', { days: 'two' }, cwd)
          expect(expected.code).toBe(2)
          const failure = makeRunner(target)('forecast', { days: 'two' }, { cwd, progress: [] })
          await expect(failure).rejects.toThrow(/city/)
          if (bridge === 'process') await expect(failure).rejects.toThrow(expected.errors)
        })

        it('stops the tool when the call is aborted', async () => {
          const controller = new AbortController()
          const call: Call = { cwd, signal: controller.signal, progress: [] }
          // The tool counts, then waits until it is cancelled: abort once it has reported progress.
          const progress = new Promise<void>((resolveProgress) => {
            call.progress.push = (...items: string[]) => {
              resolveProgress()
              return Array.prototype.push.apply(call.progress, items)
            }
          })
          const running = makeRunner(target)('count', { to: 1, wait: true }, call)
          await progress
          controller.abort()
          await expect(running).rejects.toThrow(bridge === 'process' ? /abort/i : /cancel/)
        })
      })
    }
  })
}
