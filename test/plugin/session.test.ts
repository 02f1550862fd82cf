import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { isInside } from '../../src/plugin/paths.js'
import { OacSession } from '../../src/plugin/session.js'

const root = join('/', 'work', 'app')

describe('the session', () => {
  test('isInside: the folder itself and what lies below it, nothing beside it', () => {
    expect(isInside(root, root)).toBe(true)
    expect(isInside(join(root, 'dist', 'x'), root)).toBe(true)
    expect(isInside(join('/', 'work', 'app-b'), root)).toBe(false)
    expect(isInside(join('/', 'work'), root)).toBe(false)
    expect(isInside(join(root, '..dots'), root)).toBe(true)
  })

  test('the target defaults to the output folder and resolves from the root', () => {
    const session = new OacSession({ registry: 'agents/registry.ts:registry', root })
    expect(session.target(join(root, 'dist'))).toBe(join(root, 'dist'))
    expect(() => session.target(undefined)).toThrow(/option `target` must say where the agent tree goes/)
    const explicit = new OacSession({ registry: 'agents/registry.ts:registry', root, target: '.' })
    expect(explicit.target(join(root, 'dist'))).toBe(root)
  })

  test('an explicit root wins over the host root', () => {
    const session = new OacSession({ registry: 'r.ts', root: 'apps/a' })
    session.useRoot(root)
    expect(session.root).toBe(join(process.cwd(), 'apps', 'a'))
  })

  test('before any compile it watches the registry module and its folder', () => {
    const session = new OacSession({ registry: './agents/registry.ts:registry', root })
    expect(session.watchPlan([join(root, 'dist')], [])).toEqual({ files: [join(root, 'agents', 'registry.ts')], dirs: [join(root, 'agents')] })
  })

  test('never watches a folder that holds a target or something we write', () => {
    const session = new OacSession({ registry: './registry.ts:registry', root })
    // The registry sits in the root, and the target is the root: watching the root would see our writes.
    expect(session.watchPlan([root], []).dirs).toEqual([])
    const nested = new OacSession({ registry: './agents/registry.ts:registry', root })
    expect(nested.watchPlan([join(root, 'dist')], [join(root, 'agents', 'generated.md')]).dirs).toEqual([])
    expect(nested.watchPlan([join(root, 'agents', 'out')], []).dirs).toEqual([])
  })
})
