import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ImportRefused, type RegistryFile, writeNewFiles } from '../import/index.js'
import { listFolder } from '../import/source-text.js'

const REGISTRY = 'agents/registry.ts'

/** The starter: one tool with a zod schema, one agent that uses it, one config. */
const STARTER: RegistryFile[] = [
  {
    path: 'agents/tools/count-words.ts',
    content: `import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

export const countWords = defineTool({
  name: 'count_words',
  description: 'Count the words of a text.',
  input: z.object({ text: z.string().describe('The text to count the words of') }),
  effects: { readOnly: true },
  run({ text }) {
    return { words: text.split(/\\s+/).filter(Boolean).length }
  },
})
`,
  },
  {
    path: REGISTRY,
    content: `import { defineAgent, defineRegistry } from 'unplugin-oac'
import { countWords } from './tools/count-words.ts'

export const registry = defineRegistry({
  agents: [
    defineAgent({
      name: 'helper',
      description: 'Helps with this project. Use it to count the words of a text.',
      prompt: 'You help with this project. When asked how long a text is, count its words with the count_words tool.',
      tools: [countWords],
    }),
  ],
  configs: {
    // Tools that only read run without asking; compile with --config default (the default).
    default: { approval: { allow: [{ effect: 'readOnly' }] } },
  },
})
`,
  },
]

/** The bundlers whose config file names their plugin, by the file's name. */
const BUNDLERS: ReadonlyArray<{ pattern: RegExp; plugin: string; list: string }> = [
  { pattern: /^vite\.config\.[cm]?[jt]s$/, plugin: 'vite', list: 'plugins' },
  { pattern: /^rollup\.config\.[cm]?[jt]s$/, plugin: 'rollup', list: 'plugins' },
  { pattern: /^rolldown\.config\.[cm]?[jt]s$/, plugin: 'rolldown', list: 'plugins' },
  { pattern: /^webpack\.config\.[cm]?[jt]s$/, plugin: 'webpack', list: 'plugins' },
  { pattern: /^rspack\.config\.[cm]?[jt]s$/, plugin: 'rspack', list: 'plugins' },
]

/** `oac init [dir]`: writes the starter registry (never over a file) and says how to compile it. */
export async function runInit(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let positionals: string[]
  try {
    ;({ positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} }))
  } catch (error) {
    err(`oac: ${(error as Error).message}\nUsage: oac init [dir]\n`)
    return 2
  }
  if (positionals.length > 1) {
    err(`oac: oac init takes one folder, not "${positionals[1]}"\n`)
    return 2
  }
  const root = resolve(positionals[0] ?? '.')
  try {
    await writeNewFiles(root, STARTER, 'Move them aside, or start from them as they are: oac compile agents/registry.ts.')
  } catch (error) {
    if (error instanceof ImportRefused) {
      err(`oac: ${error.message}\n`)
      return 1
    }
    throw error
  }
  const lines = [`oac: wrote a starter registry`, ...STARTER.map((file) => `  ${file.path}`), '']
  const configs = (await listFolder(root, '.')).filter((entry) => entry.isFile)
  const bundler = configs.map((entry) => ({ file: entry.name, bundler: BUNDLERS.find((candidate) => candidate.pattern.test(entry.name)) })).find((found) => found.bundler !== undefined)
  if (bundler?.bundler) {
    lines.push(
      `${bundler.file} found: add the plugin there, and each build compiles the registry:`,
      `  import oac from 'unplugin-oac/${bundler.bundler.plugin}'`,
      `  ${bundler.bundler.list}: [oac({ registry: './${REGISTRY}:registry', target: '.' })]`,
    )
  } else {
    lines.push('Compile it into every harness\'s files:', `  npx oac compile ${REGISTRY}`)
  }
  if (!(await dependsOn(root, 'zod'))) lines.push('', 'The tool is written with zod: npm install -D unplugin-oac zod')
  out(`${lines.join('\n')}\n`)
  return 0
}

async function dependsOn(root: string, name: string): Promise<boolean> {
  try {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    return ['dependencies', 'devDependencies', 'peerDependencies'].some((field) => pkg[field]?.[name] !== undefined)
  } catch {
    return false
  }
}
