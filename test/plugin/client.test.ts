import type { Agent, Manifest, Tool } from 'virtual:oac'
import { describe, expectTypeOf, test } from 'vitest'
import type { OacManifest } from '../../src/plugin/virtual.js'

// client.d.ts (shipped as `unplugin-oac/client`) declares virtual:oac by hand; it must describe exactly what
// the plugin exports. tsc (npm run typecheck) checks these; vitest runs them as no-ops.
describe('client.d.ts', () => {
  test('declares the manifest the plugin generates', () => {
    expectTypeOf<Manifest>().toEqualTypeOf<OacManifest>()
    expectTypeOf<Agent>().toEqualTypeOf<OacManifest['agents'][number]>()
    expectTypeOf<Tool>().toEqualTypeOf<OacManifest['tools'][number]>()
  })

  test('~oac is the same module', () => {
    expectTypeOf<typeof import('~oac')>().toEqualTypeOf<typeof import('virtual:oac')>()
  })
})
