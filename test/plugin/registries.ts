// Registry modules the plugin tests write into copied projects.

// A constant compiles, with a warning for pi (Gemini rejects const) on line 5.
export const WARNING_REGISTRY = `import { defineAgent, defineRegistry, defineTool } from 'unplugin-oac'
import { z } from 'zod'

// pi passes const through as is; Google models reject it.
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an id up.',
  input: z.object({ id: z.string(), kind: z.literal('user') }),
  run: ({ id }) => id,
})

export const registry = defineRegistry({
  agents: [defineAgent({ name: 'helper', description: 'Helps.', prompt: 'Help.', tools: [lookup] })],
})
`

// An invalid tool name: an error, with the defineTool call on line 5.
export const BAD_REGISTRY = `import { defineAgent, defineRegistry, defineTool } from 'unplugin-oac'
import { z } from 'zod'

// A name with a space is no tool name in any harness.
const broken = defineTool({
  name: 'bad name',
  description: 'Broken on purpose.',
  input: z.object({ q: z.string() }),
  run: () => 'x',
})

export const registry = defineRegistry({
  agents: [defineAgent({ name: 'helper', description: 'Helps.', prompt: 'Help.', tools: [broken] })],
})
`
