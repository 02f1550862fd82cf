import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GIF_BYTES, RED_PIXEL } from '../fixtures/rich-results/agents/tools/pixels.js'
import { buildTarget, fixturePlan, linkedTempDir, richFixtureRoot, run } from './fixture.js'

/*
 * Each shim, run outside its harness with a stub of what the harness hands it, must give the harness
 * what the tool script gives when run directly (its result envelope), in the harness's own form:
 * opencode's `{ output, metadata, attachments }` or a thrown error, pi's content blocks and details
 * (a failure marked by its `tool_result` handler), omp's content blocks, details and `isError`. The
 * target links our node_modules so the shims' imports (@opencode-ai/plugin, typebox) resolve as they
 * do from a harness's own.
 */
const TOKEN = 'token-from-env'

interface Call {
  /** The folder the harness runs the tool in (a subfolder of the target: scripts are found from the shim). */
  cwd: string
  signal?: AbortSignal
  progress: string[]
  /** What the harness's approval answers (opencode's `ask` resolves or rejects, pi's `ui.confirm`); undefined: pi has no UI. */
  approve?: boolean
  /** The approvals the shim asked for. */
  asked: string[]
}

type Image = { data: string; mimeType: string }

/** A call as the harness records it: the text the model reads, images, details for the user, and whether it failed. */
interface Outcome {
  text: string
  failed: boolean
  images: Image[]
  details: unknown
}

type Runner = (tool: string, input: Record<string, unknown>, call: Call) => Promise<Outcome>

interface Blocks {
  content: Array<{ type: 'text'; text: string } | ({ type: 'image' } & Image)>
  details?: unknown
  isError?: boolean
}

function call(cwd: string, fields: Partial<Call> = {}): Call {
  return { cwd, progress: [], asked: [], approve: true, ...fields }
}

/** The text and images of content blocks. */
function fromBlocks(result: Blocks): Pick<Outcome, 'text' | 'images'> {
  const texts = result.content.filter((block) => block.type === 'text')
  expect(texts.length).toBeLessThanOrEqual(1)
  const images = result.content.filter((block): block is { type: 'image' } & Image => block.type === 'image').map(({ data, mimeType }) => ({ data, mimeType }))
  return { text: texts[0]?.text ?? '', images }
}

/** Every harness records a call that throws as a failure with the error's message. */
async function failedOnThrow(running: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await running()
  } catch (error) {
    return { text: (error as Error).message, failed: true, images: [], details: undefined }
  }
}

async function importShim(target: string, path: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(join(target, path)).href)) as Record<string, unknown>
}

interface OpencodeResult {
  output: string
  metadata: { details?: unknown }
  attachments: Array<{ type: string; mime: string; url: string; filename: string }>
}

/** opencode: `execute(args, context)` of `.opencode/tool/<tool>.ts`. */
function opencodeRunner(target: string): Runner {
  return async (tool, input, call) => {
    const shim = (await importShim(target, `.opencode/tool/${tool}.ts`)).default as {
      execute(args: unknown, context: unknown): Promise<OpencodeResult>
    }
    const context = {
      sessionID: 's',
      messageID: 'm',
      agent: 'planner',
      directory: call.cwd,
      worktree: target,
      abort: call.signal ?? new AbortController().signal,
      metadata: ({ title }: { title?: string }) => call.progress.push(title ?? ''),
      // opencode's ask resolves when the permission allows (or the user agrees), and rejects otherwise.
      ask: async ({ permission, patterns, always }: { permission: string; patterns: string[]; always: string[] }) => {
        expect({ patterns, always }).toEqual({ patterns: ['*'], always: ['*'] })
        call.asked.push(permission)
        if (!call.approve) throw new Error(`The user rejected permission to use this specific tool call.`)
      },
    }
    return failedOnThrow(async () => {
      const result = await shim.execute(input, context)
      const images = result.attachments.map((attachment, i) => {
        expect(attachment).toMatchObject({ type: 'file', filename: `image-${i + 1}` })
        const [, mimeType, data] = /^data:(.+);base64,(.*)$/.exec(attachment.url)!
        expect(attachment.mime).toBe(mimeType)
        return { data: data!, mimeType: mimeType! }
      })
      return { text: result.output, failed: false, images, details: result.metadata.details }
    })
  }
}

/** pi: the extension factory's `registerTool` and `on` calls, then `execute(id, params, signal, onUpdate, ctx)` and the `tool_result` event. */
function piRunner(target: string): Runner {
  return async (tool, input, call) => {
    const factory = (await importShim(target, '.pi/extensions/oac-tools.ts')).default as (pi: unknown) => void
    const tools = new Map<string, { execute(...args: unknown[]): Promise<Blocks> }>()
    const onResult: Array<(event: { toolCallId: string }) => { isError?: boolean } | undefined> = []
    factory({
      registerTool: (definition: { name: string; execute(...args: unknown[]): Promise<Blocks> }) => tools.set(definition.name, definition),
      on: (event: string, handler: (typeof onResult)[number]) => {
        expect(event).toBe('tool_result')
        onResult.push(handler)
      },
    })
    const onUpdate = (partial: Blocks) => call.progress.push(fromBlocks(partial).text)
    const ui = {
      confirm: async (title: string) => {
        call.asked.push(title)
        return call.approve === true
      },
    }
    const ctx = { cwd: call.cwd, hasUI: call.approve !== undefined, ui }
    return failedOnThrow(async () => {
      const result = await tools.get(tool)!.execute('call-1', input, call.signal, onUpdate, ctx)
      // pi then reports the result to the extensions' handlers, which may mark it failed.
      const marked = onResult.map((handler) => handler({ toolCallId: 'call-1' })).some((answer) => answer?.isError === true)
      return { ...fromBlocks(result), failed: marked, details: result.details }
    })
  }
}

/** A stand-in for omp's `pi.zod`: every builder call chains (the schema itself is checked with real omp in the harness tier). */
const anyBuilder: unknown = new Proxy(() => anyBuilder, { get: () => anyBuilder, apply: () => anyBuilder })

/** omp: the factory called with `pi`, then `execute(id, params, onUpdate, ctx, signal)`. */
function ompRunner(target: string): Runner {
  return async (tool, input, call) => {
    const definition = await ompTool(target, tool, call.cwd)
    const onUpdate = (partial: Blocks) => call.progress.push(fromBlocks(partial).text)
    return failedOnThrow(async () => {
      const result = await definition.execute('call-1', input, onUpdate, {}, call.signal)
      return { ...fromBlocks(result), failed: result.isError === true, details: result.details }
    })
  }
}

async function ompTool(target: string, tool: string, cwd: string) {
  const factory = (await importShim(target, `.omp/tools/${tool}/index.ts`)).default as (pi: unknown) => {
    name: string
    approval?: unknown
    execute(...args: unknown[]): Promise<Blocks>
  }
  const definition = factory({ cwd, zod: anyBuilder })
  expect(definition.name).toBe(tool)
  return definition
}

/** The script run directly, as a process bridge runs it: `node scripts/<tool>.mjs --json --envelope 1`, the input on stdin. */
async function direct(target: string, tool: string, input: Record<string, unknown>, cwd: string) {
  const result = await run('node', [join(target, 'scripts', `${tool}.mjs`), '--json', '--envelope', '1'], { cwd, stdin: JSON.stringify(input) })
  const progress = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('oac:progress '))
    .map((line) => (JSON.parse(line.slice('oac:progress '.length)) as { message: string }).message)
  const envelope = JSON.parse(result.stdout) as { ok: boolean; text?: string; message?: string; images?: Image[]; details?: unknown }
  return { code: result.code, progress, envelope }
}

/** What each harness records of a call whose envelope is this: what the shim must give it. */
function expected(harness: string, envelope: Awaited<ReturnType<typeof direct>>['envelope']): Outcome {
  const text = envelope.ok ? envelope.text! : envelope.message!
  // opencode takes a failure as a thrown error, which has no details; pi's results always have some.
  const details = harness === 'opencode' && !envelope.ok ? undefined : harness === 'pi' ? (envelope.details ?? {}) : envelope.details
  return { text, failed: !envelope.ok, images: envelope.images ?? [], details }
}

const runners: Array<[string, (target: string) => Runner]> = [
  ['opencode', opencodeRunner],
  ['pi', piRunner],
  ['omp', ompRunner],
]

const inputs: Array<[string, Record<string, unknown>]> = [
  ['forecast', { city: 'Oslo', days: 2, unit: 'f', coords: { lat: 59.9, lon: 10.7 }, stops: [{ name: 'a', nights: 1 }], tags: { x: 1 } }],
  ['add_note', { title: 'Pack', kind: 'todo', labels: ['trip', 'soon'] }],
  ['count', { to: 3 }],
  ['explode', { reason: 'boom' }],
  // Invalid input: the failure names the field.
  ['forecast', { days: 'two' }],
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

    for (const [harness, makeRunner] of runners) {
      describe(harness, () => {
        it.each(inputs)('%s gives the harness what the script gives, progress included', async (tool, input) => {
          const script = await direct(target, tool, input, cwd)
          const shim = call(cwd)
          expect(await makeRunner(target)(tool, input, shim)).toEqual(expected(harness, script.envelope))
          expect(shim.progress).toEqual(script.progress)
        })

        it('runs the tool in the harness folder with the configured environment', async () => {
          const outcome = await makeRunner(target)('count', { to: 1 }, call(cwd))
          expect(outcome.text).toBe(`counted to 1 in sub; token ${TOKEN}`)
        })

        it("fails the call with the tool's error, and with invalid input naming the field", async () => {
          expect(await makeRunner(target)('explode', { reason: 'boom' }, call(cwd))).toMatchObject({ failed: true, text: 'exploded: boom' })
          expect(await makeRunner(target)('forecast', { days: 'two' }, call(cwd))).toMatchObject({ failed: true, text: expect.stringMatching(/^city: missing/) })
        })

        it.runIf(bridge === 'process')('fails the call with the exit of a script that ends before it reads its input, not with EPIPE', async () => {
          const script = join(target, 'scripts/add_note.mjs')
          const original = await readFile(script, 'utf8')
          await writeFile(script, 'process.exit(3)\n')
          try {
            // More than a pipe holds: the write of the input cannot finish before the script is gone.
            const outcome = await makeRunner(target)('add_note', { title: 'x'.repeat(4 * 1024 * 1024), kind: 'todo' }, call(cwd))
            expect(outcome).toMatchObject({ failed: true, text: expect.stringMatching(/add_note\.mjs exited with 3$/) })
          } finally {
            await writeFile(script, original)
          }
        })

        it('stops the tool when the call is aborted', async () => {
          const controller = new AbortController()
          const running = call(cwd, { signal: controller.signal })
          // The tool counts, then waits until it is cancelled: abort once it has reported progress.
          const progress = new Promise<void>((resolveProgress) => {
            running.progress.push = (...items: string[]) => {
              resolveProgress()
              return Array.prototype.push.apply(running.progress, items)
            }
          })
          const outcome = makeRunner(target)('count', { to: 1, wait: true }, running)
          await progress
          controller.abort()
          expect(await outcome).toMatchObject({ failed: true, text: bridge === 'process' ? expect.stringMatching(/abort/i) : 'cancelled' })
        })
      })
    }
  })

  describe(`rich results through the shims, ${bridge} bridge`, () => {
    let target = ''

    beforeAll(async () => {
      target = await buildTarget(await fixturePlan({ bridge }, richFixtureRoot), await linkedTempDir(), richFixtureRoot)
    })
    afterAll(() => rm(target, { recursive: true, force: true }))

    const richInputs: Array<[string, Record<string, unknown>]> = [
      ['chart', { points: 2 }],
      ['chart', { caption: false }],
      ['measure', { text: 'a b' }],
      ['measure', { text: 'a', lie: true }],
      ['listing', { count: 1 }],
      ['refuse', { branch: 'dev' }],
      ['refuse', { branch: 'main' }],
    ]

    for (const [harness, makeRunner] of runners) {
      it.each(richInputs)(`${harness}: %s %j gives the harness what the script gives`, async (tool, input) => {
        const script = await direct(target, tool, input, target)
        expect(await makeRunner(target)(tool, input, call(target))).toEqual(expected(harness, script.envelope))
      })
    }

    it('gives each harness the images and details it carries, and the failure and its message', async () => {
      const images = [
        { data: RED_PIXEL, mimeType: 'image/png' },
        { data: Buffer.from(GIF_BYTES).toString('base64'), mimeType: 'image/gif' },
      ]
      for (const [, makeRunner] of runners) {
        expect(await makeRunner(target)('chart', { points: 2 }, call(target))).toEqual({ text: 'A chart of 2 points.', failed: false, images, details: { points: 2, drawnBy: 'chart' } })
      }
      expect(await opencodeRunner(target)('refuse', { branch: 'dev' }, call(target))).toEqual({ text: 'No branch named dev.', failed: true, images: [], details: undefined })
      expect(await piRunner(target)('refuse', { branch: 'dev' }, call(target))).toEqual({ text: 'No branch named dev.', failed: true, images: [], details: { known: ['main'] } })
      expect(await ompRunner(target)('refuse', { branch: 'dev' }, call(target))).toEqual({ text: 'No branch named dev.', failed: true, images: [], details: { known: ['main'] } })
    })

    it('opencode: every tool asks opencode under its own name, whose permission decides; a refusal fails the call unrun', async () => {
      const asked = call(target)
      await opencodeRunner(target)('erase', { path: 'a.txt' }, asked)
      expect(asked.asked).toEqual(['erase'])
      const refused = call(target, { approve: false })
      expect(await opencodeRunner(target)('erase', { path: 'a.txt' }, refused)).toMatchObject({ failed: true, text: expect.stringMatching(/rejected/) })
    })

    it('pi: a tool that asks confirms with the user first, fails when declined or without a UI, and others never ask', async () => {
      const agreed = call(target)
      expect(await piRunner(target)('erase', { path: 'a.txt' }, agreed)).toMatchObject({ failed: false, text: 'erased a.txt' })
      expect(agreed.asked).toEqual(['Run erase?'])
      expect(await piRunner(target)('erase', { path: 'a.txt' }, call(target, { approve: false }))).toMatchObject({ failed: true, text: 'The user declined to run the tool "erase".' })
      expect(await piRunner(target)('erase', { path: 'a.txt' }, call(target, { approve: undefined }))).toMatchObject({
        failed: true,
        text: 'The tool "erase" asks before it runs, and this pi session has no UI to ask in.',
      })
      const reading = call(target)
      await piRunner(target)('chart', {}, reading)
      expect(reading.asked).toEqual([])
    })

    it("omp: each tool's approval holds its tier and the rules' policy", async () => {
      const approvals = Object.fromEntries(
        await Promise.all(['chart', 'measure', 'listing', 'refuse', 'erase'].map(async (tool) => [tool, (await ompTool(target, tool, target)).approval])),
      )
      expect(approvals).toEqual({
        chart: { tier: 'read', policy: 'allow' },
        measure: { tier: 'read', policy: 'allow' },
        // No effects and no rule: omp's default (exec, as its approval mode decides).
        listing: undefined,
        refuse: undefined,
        erase: { tier: 'exec', policy: 'prompt' },
      })
    })
  })
}
