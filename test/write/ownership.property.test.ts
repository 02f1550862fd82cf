import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { parse } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../src/define/types.js'
import type { MergeFile } from '../../src/emit/types.js'
import { writeOutputs } from '../../src/write/index.js'
import { hostileString } from '../escape/hostile.js'
import { jsoncStyle, jsoncValue, printJsonc } from './jsonc-print.js'
import { printToml, userToml } from './toml-print.js'

/**
 * Random user files whose keys collide with ours, through random sequences of builds (entries
 * added, changed, dropped; with and without force) and user edits, checked against a model of who
 * owns each key: a key the user wrote keeps the user's value unless a build with force took it,
 * and once every entry is gone the file is byte for byte the user's (their own later edit included).
 */

let root: string
let runs = 0
/** How often a build met a user's key with another value: refused, and taken with force (so the test cannot pass vacuously). */
const seen = { refused: 0, forced: 0 }
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'oac-own-prop-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

/** One key path we may write, the values we may give it, and the user's value there (if any). */
interface Candidate {
  keyPath: string[]
  values: JsonValue[]
  user: JsonValue | undefined
}

type Step = { kind: 'build'; picks: (number | undefined)[]; force: boolean } | { kind: 'note' }

/** Equality as a merge sees it: by value, key order and number spelling aside. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

function valueAt(document: unknown, path: string[]): unknown {
  let node = document
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

const steps = (candidates: number, values: number): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('build' as const), picks: fc.array(fc.option(fc.nat(values - 1), { nil: undefined }), { minLength: candidates, maxLength: candidates }), force: fc.boolean() }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'note' as const }) },
    ),
    { minLength: 1, maxLength: 6 },
  )

/**
 * Runs the steps against a fresh folder holding `original` and checks every build against the
 * model; ends with a build that emits nothing, after which the file must be the user's again.
 */
async function runSequence(format: MergeFile['format'], path: string, original: string, candidates: Candidate[], sequence: Step[]): Promise<void> {
  const target = join(root, `run-${runs++}`)
  await mkdir(join(target, path, '..'), { recursive: true })
  await writeFile(join(target, path), original)
  // A paragraph of its own: a comment written right above one of our lines would make that line's surroundings the user's.
  const note = format === 'json' ? '// a note the user added later\n\n' : '# a note the user added later\n\n'
  const parseText = (text: string): unknown => (format === 'json' ? jsoncValue(text) : JSON.parse(JSON.stringify(parse(text))))
  // Who holds each candidate key: the user (with their value), us (forced: the user's value waits to come back), or nobody.
  const owner = candidates.map((c): 'user' | 'ours' | 'forced' | 'none' => (c.user === undefined ? 'none' : 'user'))
  const ourValue: (JsonValue | undefined)[] = candidates.map(() => undefined)
  let expectedFinal = original
  for (const step of [...sequence, { kind: 'build' as const, picks: candidates.map(() => undefined), force: false }]) {
    if (step.kind === 'note') {
      await writeFile(join(target, path), note + (await readFile(join(target, path), 'utf8')))
      expectedFinal = note + expectedFinal
      continue
    }
    const before = await readFile(join(target, path), 'utf8')
    const entries = candidates.flatMap((c, i) => {
      const pick = step.picks[i]
      return pick === undefined ? [] : [{ keyPath: c.keyPath, value: c.values[pick] as JsonValue, index: i }]
    })
    const conflicts = entries.filter(({ index, value }) => owner[index] === 'user' && canonical(candidates[index]?.user) !== canonical(value))
    const report = await writeOutputs([{ kind: 'merge', path, format, entries: entries.map(({ keyPath, value }) => ({ keyPath, value })) }], {
      target,
      mode: 'write',
      force: step.force,
      owner: 'oac-tools',
    })
    const codes = report.diagnostics.map((d) => `${d.severity} ${d.code}`)
    expect(codes).toEqual(conflicts.map(() => `${step.force ? 'warning' : 'error'} merge-key-taken`))
    const after = await readFile(join(target, path), 'utf8')
    if (conflicts.length > 0) seen[step.force ? 'forced' : 'refused']++
    if (conflicts.length > 0 && !step.force) {
      expect(after).toBe(before)
      continue
    }
    candidates.forEach((_, i) => {
      const entry = entries.find((e) => e.index === i)
      const state = owner[i]
      if (entry) {
        if (state === 'none') owner[i] = 'ours'
        else if (state === 'user' && canonical(candidates[i]?.user) !== canonical(entry.value)) owner[i] = 'forced'
        ourValue[i] = entry.value
      } else if (state === 'ours') owner[i] = 'none'
      else if (state === 'forced') owner[i] = 'user'
    })
    const document = parseText(after)
    candidates.forEach((c, i) => {
      const now = valueAt(document, c.keyPath)
      const state = owner[i]
      if (state === 'user') expect(canonical(now), `${c.keyPath.join('.')} is the user's`).toBe(canonical(c.user))
      else if (state === 'none') expect(now, `${c.keyPath.join('.')} is gone`).toBeUndefined()
      else expect(canonical(now), `${c.keyPath.join('.')} is ours`).toBe(canonical(ourValue[i]))
    })
  }
  const final = await readFile(join(target, path), 'utf8')
  expect(final).toBe(expectedFinal)
  await rm(target, { recursive: true, force: true })
}

/** A server name none of `taken` has. */
function freshName(taken: string[]): string {
  return ['oac-tools', 'oac-tools-2', 'oac-tools-3'].find((name) => !taken.includes(name)) as string
}

const anyJson: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>
const serverValue: fc.Arbitrary<JsonValue> = fc.record({ command: hostileString, args: fc.array(hostileString, { maxLength: 2 }) })

describe('ownership of merged keys under random builds (JSON and JSONC)', () => {
  const userDocument = fc.record({
    servers: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), anyJson, { maxKeys: 3 }),
    extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), anyJson, { maxKeys: 3 }),
  })

  it('keeps every user value unless forced, and gives the user’s bytes back once our entries go', async () => {
    Object.assign(seen, { refused: 0, forced: 0 })
    await fc.assert(
      fc.asyncProperty(userDocument, jsoncStyle, fc.array(serverValue, { minLength: 2, maxLength: 2 }), fc.nat(), steps(3, 3), async ({ servers, extra }, style, values, seed, sequence) => {
        const doc: { [key: string]: JsonValue } = {}
        for (const [key, value] of Object.entries(extra)) if (key !== 'mcpServers' && key !== '__proto__') doc[key] = value
        const userServers: { [key: string]: JsonValue } = {}
        for (const [key, value] of Object.entries(servers)) if (key !== '__proto__') userServers[key] = value
        doc.mcpServers = userServers
        const serverNames = Object.keys(userServers)
        const extraNames = Object.keys(doc).filter((key) => key !== 'mcpServers')
        // A server of the user's name (a collision), ours under a fresh name, and a top-level key (the user's or fresh).
        const collide = serverNames[seed % Math.max(1, serverNames.length)] ?? 'oac-tools'
        const top = extraNames[seed % Math.max(1, extraNames.length)] ?? 'zz-top'
        const paths = [['mcpServers', collide], ['mcpServers', freshName([...serverNames, collide])], [top]]
        const candidates = paths.map((keyPath): Candidate => {
          const user = valueAt(doc, keyPath) as JsonValue | undefined
          return { keyPath, user, values: [...values, user ?? (values[0] as JsonValue)] }
        })
        await runSequence('json', '.mcp.json', printJsonc(doc, style), candidates, sequence)
      }),
      { numRuns: 150 },
    )
    console.log(`ownership property test (JSON): 150 sequences, ${seen.refused} builds refused a user's key, ${seen.forced} took one with force`)
    expect(seen.refused).toBeGreaterThan(30)
    expect(seen.forced).toBeGreaterThan(30)
  }, 120_000)
})

describe('ownership of merged keys under random builds (Codex TOML)', () => {
  function parses(text: string): boolean {
    try {
      parse(text)
      return true
    } catch {
      return false
    }
  }
  const strings = fc.array(hostileString, { minLength: 2, maxLength: 2 })

  it('keeps every user value unless forced, and gives the user’s bytes back once our entries go', async () => {
    Object.assign(seen, { refused: 0, forced: 0 })
    let ran = 0
    await fc.assert(
      fc.asyncProperty(userToml, strings, fc.array(serverValue, { minLength: 2, maxLength: 2 }), fc.nat(), steps(4, 3), async (userDoc, texts, values, seed, sequence) => {
        const { text: original } = printToml(userDoc)
        fc.pre(parses(original))
        const doc = JSON.parse(JSON.stringify(parse(original))) as { [key: string]: JsonValue }
        const userServers = Object.keys((doc.mcp_servers ?? {}) as object)
        const collide = userServers[seed % Math.max(1, userServers.length)] ?? 'oac-tools'
        const candidates = [['name'], ['description'], ['mcp_servers', collide], ['mcp_servers', freshName([...userServers, collide])]].map(
          (keyPath): Candidate => {
            const user = valueAt(doc, keyPath) as JsonValue | undefined
            const ours = keyPath.length === 1 ? texts : values
            // Our top-level values are never tables (a `[table]` must follow the top-level keys, so a key
            // line we turned into one would come back elsewhere): we take the user's value only if it is not one.
            const asOurs = keyPath.length === 1 && typeof user === 'object' && user !== null && !Array.isArray(user) ? undefined : user
            return { keyPath, user, values: [...ours, asOurs ?? (ours[0] as JsonValue)] }
          },
        )
        ran++
        await runSequence('toml', '.codex/agents/reviewer.toml', original, candidates, sequence)
      }),
      { numRuns: 150 },
    )
    console.log(`ownership property test (TOML): ${ran} sequences, ${seen.refused} builds refused a user's key, ${seen.forced} took one with force`)
    expect(ran).toBeGreaterThan(100)
    expect(seen.refused).toBeGreaterThan(30)
    expect(seen.forced).toBeGreaterThan(30)
  }, 120_000)
})

describe('ownership of list items under random builds (permission rules in JSON and JSONC)', () => {
  const names = ['mcp__oac-tools__a', 'mcp__oac-tools__b', 'mcp__oac-tools__c', 'Read']
  const userList = fc.array(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 4 })
  // The user's lists are there (empty ones too), so our items share them with the user's; lists and objects
  // a merge makes for our items go with the last of them (test/write/removal.property.test.ts).
  const userDocument = fc.record({
    allow: userList,
    ask: userList,
    extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), anyJson, { maxKeys: 2 }),
  })
  let builds = 0
  let userItems = 0

  it('adds and removes only our items, never one the user wrote, and gives the user’s bytes back once ours go', async () => {
    await fc.assert(
      fc.asyncProperty(userDocument, jsoncStyle, steps(6, 1), async ({ allow, ask, extra }, style, sequence) => {
        const doc: { [key: string]: JsonValue } = {}
        for (const [key, value] of Object.entries(extra)) if (key !== 'permissions' && key !== '__proto__') doc[key] = value
        doc.permissions = { allow, ask }
        const original = printJsonc(doc, style)
        const candidates = ['allow', 'ask'].flatMap((list) => names.slice(0, 3).map((name) => ({ list, name, keyPath: ['permissions', list, '[]', name] })))
        const userHas = (list: string, name: string) => (list === 'allow' ? allow : ask).includes(name)
        const target = join(root, `run-${runs++}`)
        const path = '.claude/settings.json'
        await mkdir(join(target, '.claude'), { recursive: true })
        await writeFile(join(target, path), original)
        let expectedFinal = original
        for (const step of [...sequence, { kind: 'build' as const, picks: candidates.map(() => undefined), force: false }]) {
          if (step.kind === 'note') {
            const note = '// a note the user added later\n\n'
            await writeFile(join(target, path), note + (await readFile(join(target, path), 'utf8')))
            expectedFinal = note + expectedFinal
            continue
          }
          const picked = candidates.filter((_, i) => step.picks[i] !== undefined)
          const report = await writeOutputs([{ kind: 'merge', path, format: 'json', entries: picked.map(({ keyPath, name }) => ({ keyPath, value: name })) }], {
            target,
            mode: 'write',
            force: step.force,
            owner: 'oac-tools',
          })
          builds++
          expect(report.diagnostics).toEqual([])
          const document = jsoncValue(await readFile(join(target, path), 'utf8')) as { permissions?: { [list: string]: JsonValue[] } }
          for (const list of ['allow', 'ask']) {
            const now = document.permissions?.[list] ?? []
            const users = list === 'allow' ? allow : ask
            // Every element the user wrote is still there, as many times as they wrote it.
            for (const element of users) expect(now.filter((e) => canonical(e) === canonical(element)).length).toBeGreaterThanOrEqual(users.filter((e) => canonical(e) === canonical(element)).length)
            for (const { name } of candidates.filter((c) => c.list === list)) {
              const wanted = picked.some((c) => c.list === list && c.name === name)
              if (userHas(list, name)) userItems++
              const count = now.filter((e) => e === name).length
              const theirs = users.filter((e) => e === name).length
              expect(count, `${list} ${name}`).toBe(theirs > 0 ? theirs : wanted ? 1 : 0)
            }
          }
        }
        expect(await readFile(join(target, path), 'utf8')).toBe(expectedFinal)
        await rm(target, { recursive: true, force: true })
      }),
      { numRuns: 150 },
    )
    console.log(`ownership property test (list items): ${builds} builds, ${userItems} checks of an item the user wrote`)
    expect(userItems).toBeGreaterThan(50)
  }, 120_000)
})
