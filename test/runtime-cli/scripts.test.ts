import { spawn } from 'node:child_process'
import { readdir, realpath, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ScriptBundler } from '../../src/bundle/index.js'
import { fixturePlan, fixtureRoot, runNode, writeAndMove } from '../bundle/fixture.js'

// The scripts are built once, written to a target, and that target is copied to a folder with no
// node_modules anywhere above it: every run below is a plain `node scripts/<tool>.mjs` there.
let dir = ''
const bundler = new ScriptBundler(fixtureRoot)

beforeAll(async () => {
  const result = await bundler.build(fixturePlan())
  expect(result.diagnostics).toEqual([])
  dir = await writeAndMove(result.files)
})

afterAll(() => bundler.dispose())

async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true })
  return entries.map(String).sort()
}

const run = (args: string[], options?: { stdin?: string; env?: Record<string, string> }) => runNode(dir, args, options)

const weatherParis = {
  city: 'Paris',
  unit: 'f',
  forecast: [
    { day: 1, high: '68°F' },
    { day: 2, high: '70°F' },
  ],
  tags: ['a', 'b'],
}

describe('--help', () => {
  it('documents every flag from the schema: type, required or optional, default, choices, and the JSON form', async () => {
    const { code, stdout, stderr } = await run(['scripts/weather.mjs', '--help'])
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toContain('weather: Get a weather forecast for a city.')
    expect(stdout).toContain('node scripts/weather.mjs --city <string> [--days <integer>] [--unit <c|f>] [--verbose] [--tags <string>...]')
    expect(stdout).toMatch(/--city <string>\n\s+string; required\n\s+City name to look up/)
    expect(stdout).toMatch(/--days <integer>\n\s+integer; optional\n\s+How many days to forecast/)
    expect(stdout).toMatch(/--unit <c\|f>\n\s+one of "c", "f"; optional; default: "c"/)
    expect(stdout).toMatch(/--verbose, --no-verbose\n\s+boolean; optional/)
    expect(stdout).toMatch(/--tags <string>\n\s+string; optional; repeat the flag for each element/)
    expect(stdout).toContain('node scripts/weather.mjs --json')
    expect(stdout).toContain('"minimum": 1,\n      "maximum": 14,')
  })

  it('shows how to give nested objects and arrays of objects as JSON flags', async () => {
    const { code, stdout } = await run(['scripts/plan_trip.mjs', '-h'])
    expect(code).toBe(0)
    expect(stdout).toContain('node scripts/plan_trip.mjs --traveller <json> --stops <json>')
    expect(stdout).toMatch(/--traveller <json>\n\s+object as JSON, e\.g\. --traveller '\{"name":"text"\}'; required\n/)
    expect(stdout).toMatch(/--stops <json>\n\s+array of object as JSON, e\.g\. --stops '\[\{"city":"text","nights":1\}\]'; required\n/)
    expect(stdout).not.toContain('Only through --json')
  })

  it('wins over any other argument', async () => {
    const { code, stdout } = await run(['scripts/weather.mjs', '--town', 'x', '--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('Usage:')
  })
})

describe('flags', () => {
  it('converts strings, integers, enums, booleans and repeated flags (zod tool)', async () => {
    const { code, stdout, stderr } = await run(['scripts/weather.mjs', '--city', 'Paris', '--days', '2', '--unit', 'f', '--tags', 'a', '--tags', 'b', '--no-verbose'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toBe(`${JSON.stringify(weatherParis, null, 2)}\n`)
  })

  it('accepts --flag=value and a boolean flag alone', async () => {
    const { code, stdout } = await run(['scripts/weather.mjs', '--city=Oslo', '--verbose'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ city: 'Oslo', unit: 'c', forecast: [{ day: 1, high: '20°C' }], verbose: true })
  })

  it('applies TypeBox defaults and prints a string result as is, with a final newline', async () => {
    const { code, stdout } = await run(['scripts/add_note.mjs', '--title', 'Buy milk', '--kind', 'todo', '--labels', 'home', '--labels', 'food'])
    expect(code).toBe(0)
    expect(stdout).toBe('[todo p3] Buy milk #home #food\n')
  })

  it('takes negative numbers, in the --flag=value form and as the next argument', async () => {
    for (const ratio of [['--ratio=-4.5'], ['--ratio', '-4.5']]) {
      const { code, stdout } = await run(['scripts/add_note.mjs', '--title', 'Cold', '--kind', 'idea', ...ratio])
      expect(code, ratio.join(' ')).toBe(0)
      expect(stdout).toBe('[idea p3] Cold at -4.5°C\n')
    }
  })

  it('takes an object and an array of objects as JSON flags (the examples --help shows run as they are)', async () => {
    const { code, stdout } = await run(['scripts/plan_trip.mjs', '--traveller', '{"name":"Ada"}', '--stops', '[{"city":"Lyon","nights":2},{"city":"Nice","nights":3}]'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ traveller: 'Ada', route: 'Lyon -> Nice', nights: 5 })
    const example = await run(['scripts/plan_trip.mjs', '--traveller', '{"name":"text"}', '--stops', '[{"city":"text","nights":1}]'])
    expect(example.code).toBe(0)
    const bad = await run(['scripts/plan_trip.mjs', '--traveller', '{"name":"Ada"}', '--stops', '[{"city":"Lyon"}]'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('stops[0].nights: missing (expected number)')
  })
})

describe('--json on stdin', () => {
  it('runs an async tool with nested object input, its console output kept off stdout', async () => {
    const input = { traveller: { name: 'Ada' }, stops: [{ city: 'Lyon', nights: 2 }, { city: 'Nice', nights: 3 }] }
    const { code, stdout, stderr } = await run(['scripts/plan_trip.mjs', '--json'], { stdin: JSON.stringify(input) })
    expect(stderr).toBe('planning 2 stops\n')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ traveller: 'Ada', route: 'Lyon -> Nice', nights: 5 })
  })

  it('runs a TypeBox tool', async () => {
    const { code, stdout } = await run(['scripts/add_note.mjs', '--json'], { stdin: '{"title":"T","kind":"idea","priority":5,"ratio":10}' })
    expect(code).toBe(0)
    expect(stdout).toBe('[idea p5] T at 10°C\n')
  })
})

describe('invalid input exits 2 and names the field', () => {
  const cases: Array<[string, string[], string | undefined, string]> = [
    ['a flag value of the wrong type', ['scripts/weather.mjs', '--city', 'P', '--days', 'x'], undefined, '--days: expected integer, got "x"'],
    ['a fraction for an integer flag', ['scripts/weather.mjs', '--city', 'P', '--days', '1.5'], undefined, '--days: expected integer, got "1.5"'],
    ['a value outside an enum', ['scripts/weather.mjs', '--city', 'P', '--unit', 'k'], undefined, '--unit: expected one of "c", "f", got "k"'],
    ['a value outside a TypeBox union of literals', ['scripts/add_note.mjs', '--title', 'x', '--kind', 'nope'], undefined, '--kind: expected one of "todo", "idea", got "nope"'],
    ['a missing required flag (zod)', ['scripts/weather.mjs'], undefined, 'city: missing (expected string)'],
    ['a missing required flag (TypeBox)', ['scripts/add_note.mjs', '--kind', 'todo'], undefined, 'title: missing (expected string)'],
    ['a zod bound broken in JSON', ['scripts/weather.mjs', '--json'], '{"city":"P","days":30}', 'days: too big: expected number to be <=14, got 30'],
    ['a TypeBox type broken in JSON', ['scripts/add_note.mjs', '--json'], '{"title":3,"kind":"todo"}', 'title: expected string, got 3'],
    ['a TypeBox union broken in JSON', ['scripts/add_note.mjs', '--json'], '{"title":"x","kind":"nope"}', 'kind: expected one of "todo", "idea", got "nope"'],
    ['a nested field missing in JSON', ['scripts/plan_trip.mjs', '--json'], '{"traveller":{},"stops":[{"city":"X","nights":0}]}', 'traveller.name: missing (expected string)'],
    ['a nested array element broken in JSON', ['scripts/plan_trip.mjs', '--json'], '{"traveller":{"name":"A"},"stops":[{"city":"X","nights":0}]}', 'stops[0].nights: too small: expected number to be >=1, got 0'],
    ['an unknown flag', ['scripts/weather.mjs', '--city', 'P', '--town', 'x'], undefined, 'unknown option --town'],
    ['a negated non-boolean flag', ['scripts/weather.mjs', '--no-city'], undefined, 'unknown option --no-city'],
    ['a flag without its value', ['scripts/weather.mjs', '--city'], undefined, "Option '--city <value>' argument missing"],
    ['a stray argument', ['scripts/weather.mjs', 'Paris'], undefined, "Unexpected argument 'Paris'"],
    ['a single-valued flag given twice', ['scripts/weather.mjs', '--city', 'A', '--city', 'B'], undefined, '--city: given more than once'],
    ['invalid JSON on stdin', ['scripts/weather.mjs', '--json'], '{"city": ', 'invalid JSON on stdin:'],
    ['a JSON array on stdin', ['scripts/weather.mjs', '--json'], '["Paris"]', 'expected one JSON object on stdin, got an array'],
    ['nothing on stdin', ['scripts/weather.mjs', '--json'], '', 'expected one JSON object on stdin, got nothing'],
    ['--json mixed with field flags', ['scripts/weather.mjs', '--json', '--city', 'P'], '{"city":"P"}', 'do not combine it with --city'],
  ]
  it.each(cases)('%s', async (_name, args, stdin, expected) => {
    const { code, stdout, stderr } = await run(args, stdin === undefined ? undefined : { stdin })
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(expected)
    expect(stderr).toContain(`Run "node ${args[0]} --help" for the options.`)
  })
})

describe('tool failures exit 1', () => {
  it('prints the message only', async () => {
    const { code, stdout, stderr } = await run(['scripts/explode.mjs', '--reason', 'boom'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('the tool blew up: boom\n')
  })

  it('prints the stack when OAC_DEBUG is set', async () => {
    const { code, stderr } = await run(['scripts/explode.mjs', '--reason', 'boom'], { env: { OAC_DEBUG: '1' } })
    expect(code).toBe(1)
    expect(stderr).toMatch(/^Error: the tool blew up: boom\n\s+at detonate /)
  })

  it('names the tool’s own source file and line in that stack, through the script’s source map', async () => {
    const { stderr } = await run(['scripts/explode.mjs', '--reason', 'boom'], { env: { OAC_DEBUG: '1' } })
    // tools/explode.ts throws on its line 5; the map's path is relative, so it points beside the moved scripts folder.
    const frame = /\n\s+at detonate \((.+)\)\n/.exec(stderr)?.[1]
    expect(frame).toBe(`${join(dir, 'tools', 'explode.ts')}:5:9`)
  })
})

describe('running a script', () => {
  it('writes nothing into the folder it runs from or the tree it belongs to', async () => {
    const before = await listTree(dir)
    for (const args of [['scripts/weather.mjs', '--city', 'Oslo'], ['scripts/add_note.mjs', '--title', 'x', '--kind', 'idea']]) {
      expect((await run(args)).code).toBe(0)
    }
    expect(await listTree(dir)).toEqual(before)
  })
})

describe('context', () => {
  it('writes progress as oac:progress lines on stderr and passes the declared env and the cwd', async () => {
    const { code, stdout, stderr } = await run(['scripts/count.mjs', '--to', '3'], { env: { OAC_FIXTURE_TOKEN: 'tok-1' } })
    expect(code).toBe(0)
    expect(stderr).toBe(['step 1 of 3', 'step 2 of 3', 'step 3 of 3'].map((m) => `oac:progress {"message":"${m}"}\n`).join(''))
    expect(stdout).toBe(`counted to 3; token tok-1; cwd ${await realpath(dir)}\n`)
  })

  it('aborts ctx.signal on SIGTERM', async () => {
    const child = spawn(process.execPath, ['scripts/wait_for_cancel.mjs', '--hold'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      // Signal only once the tool is running and listening to its signal.
      if (stderr.includes('oac:progress {"message":"waiting"}\n') && !child.killed) child.kill('SIGTERM')
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(1)
    expect(stderr).toBe('oac:progress {"message":"waiting"}\nstopped: cancelled by SIGTERM\n')
  })

  it('fails, instead of exiting 0 with no output, when the tool never settles and nothing keeps node running', async () => {
    const { code, stdout, stderr } = await run(['scripts/wait_for_cancel.mjs', '--no-hold'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      'oac:progress {"message":"waiting"}\n' +
        'wait_for_cancel did not finish: its run() returned a promise that never settled, and nothing was left to wait for.\n',
    )
  })
})

describe('main-module detection', () => {
  it('runs the command line when started through a symlink', async () => {
    await symlink(join(dir, 'scripts', 'add_note.mjs'), join(dir, 'note-link.mjs'))
    const { code, stdout } = await run(['note-link.mjs', '--title', 'Linked', '--kind', 'idea'])
    expect(code).toBe(0)
    expect(stdout).toBe('[idea p3] Linked\n')
  })
})

describe('importing a script', () => {
  it('exports the tool and an invoke that gives the same text as the process, without running the CLI', async () => {
    const input = { city: 'Paris', days: 2, unit: 'f', tags: ['a', 'b'] }
    const importer = `
      const script = await import('./scripts/weather.mjs')
      const options = { signal: new AbortController().signal, cwd: process.cwd(), env: {}, progress() {} }
      const ok = await script.invoke(${JSON.stringify(input)}, options)
      const bad = await script.invoke({ city: 1 }, options)
      const failed = await (await import('./scripts/explode.mjs')).invoke({ reason: 'inline' }, options)
      console.log(JSON.stringify({ kind: script.tool.kind, name: script.tool.name, ok, bad, failed: { ...failed, stack: typeof failed.stack } }))
    `
    const imported = await runNode(dir, ['--input-type=module', '-e', importer])
    expect(imported.stderr).toBe('')
    const result = JSON.parse(imported.stdout)
    expect(result.kind).toBe('oac:tool')
    expect(result.name).toBe('weather')
    const processRun = await run(['scripts/weather.mjs', '--json'], { stdin: JSON.stringify(input) })
    expect(result.ok).toEqual({ ok: true, text: processRun.stdout.replace(/\n$/, '') })
    expect(result.ok.text).toBe(JSON.stringify(weatherParis, null, 2))
    expect(result.bad).toEqual({ ok: false, kind: 'invalid-input', message: 'city: expected string, got 1' })
    expect(result.failed).toEqual({ ok: false, kind: 'tool-error', message: 'the tool blew up: inline', stack: 'string' })
  })
})
