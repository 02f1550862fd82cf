import { describe, expect, it } from 'vitest'
import { onlyRunBodiesDiffer } from '../../src/load/run-edits.js'

const TOOL = `import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

const unit = (n: number) => \`\${n} km\`

export const distance = defineTool({
  name: 'distance',
  description: 'Distance between two towns.',
  input: z.object({ from: z.string(), to: z.string() }),
  run({ from, to }) {
    const km = from.length + to.length
    return unit(km)
  },
})
`

const SECOND = `
export const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => text,
})
`

const differ = (after: string, before = TOOL) => onlyRunBodiesDiffer('tools/distance.ts', before, after)

describe('an edit only inside a tool’s run body', () => {
  it('is one when the body of a run method or arrow changed, however much', () => {
    expect(differ(TOOL.replace('from.length + to.length', 'Math.abs(from.length - to.length)'))).toBe(true)
    expect(differ(TOOL.replace('    return unit(km)\n', '    const rounded = Math.round(km)\n    return unit(rounded)\n'))).toBe(true)
    expect(differ(TOOL + SECOND.replace('=> text', '=> text.trim()'), TOOL + SECOND)).toBe(true)
    expect(differ(TOOL)).toBe(true)
  })

  it('is none when what evaluating the module makes can change', () => {
    // The definition itself, an import, a helper the body calls, code at the top level.
    expect(differ(TOOL.replace("'Distance between two towns.'", "'Distance, edited.'"))).toBe(false)
    expect(differ(TOOL.replace("import { z } from 'zod'", "import { z } from 'zod'\nimport './setup.js'"))).toBe(false)
    expect(differ(TOOL.replace('`${n} km`', '`${n} miles`'))).toBe(false)
    expect(differ(`${TOOL}console.log('loaded')\n`)).toBe(false)
    // A run given by reference: its body lies outside the definition.
    const byReference = TOOL.replace('run({ from, to }) {', 'run: measure,\n})\nfunction measure({ from, to }) {').replace('  },\n})\n', '}\n')
    expect(differ(byReference.replace('from.length + to.length', 'from.length * 2'), byReference)).toBe(false)
  })

  it('is none when a later definition moved: definitions record where they are made', () => {
    const two = TOOL + SECOND
    // The first tool's body grows by a line: the second defineTool call starts a line lower.
    expect(differ(two.replace('    return unit(km)\n', '    const rounded = Math.round(km)\n    return unit(rounded)\n'), two)).toBe(false)
    // Same length, same lines: the second call has not moved.
    expect(differ(two.replace('from.length + to.length', 'from.length - to.length'), two)).toBe(true)
  })

  it('is none when either text does not parse', () => {
    expect(differ(TOOL.replace('return unit(km)', 'return unit(km'))).toBe(false)
    expect(onlyRunBodiesDiffer('tools/distance.ts', TOOL.replace('return unit(km)', 'return unit(km'), TOOL)).toBe(false)
  })
})
