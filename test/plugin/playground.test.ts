import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as esbuild from 'esbuild'
import { rollup, type RollupOptions } from 'rollup'
import { build as viteBuild, type InlineConfig } from 'vite'
import { describe, expect, test } from 'vitest'
import webpack from 'webpack'
import { copyProject, repoRoot } from '../util/project.js'
import { readTree } from './bundlers.js'

/**
 * Imports a config file as users write it, with `unplugin-oac/<bundler>` pointing at this repo's sources
 * (the package is not installed in the copy): the text is the same but for that one specifier.
 */
async function importConfig<T>(file: string): Promise<T> {
  const text = await readFile(file, 'utf8')
  const mapped = text.replace(/(['"])unplugin-oac\/(\w+)\1/g, (_, quote: string, entry: string) => `${quote}${join(repoRoot, 'src', `${entry}.ts`)}${quote}`)
  if (mapped === text) throw new Error(`${file} does not import unplugin-oac`)
  const copy = file.replace(/\.(\w+)$/, '.from-sources.$1')
  await writeFile(copy, mapped)
  return ((await import(pathToFileURL(copy).href)) as { default: T }).default
}

const TREE = /^(\.mcp\.json|\.oac|\.agents|\.claude|\.codex|\.opencode|\.pi|\.omp|\.gemini|\.github|\.qwen|\.kilo|\.vscode|prompts|scripts)(\/|$)/

describe('playground', () => {
  test('its rollup, esbuild and webpack configs build the agent tree its vite config builds', async () => {
    const trees = new Map<string, Map<string, string>>()
    for (const tool of ['vite', 'rollup', 'esbuild', 'webpack'] as const) {
      const root = await copyProject(join(repoRoot, 'playground'), `oac-playground-${tool}-`)
      // Start from the sources alone: a demo run may have left a tree in the playground.
      for (const entry of await readdir(root)) if (TREE.test(entry)) await rm(join(root, entry), { recursive: true })
      if (tool === 'vite') {
        const config = await importConfig<InlineConfig>(join(root, 'vite.config.ts'))
        await viteBuild({ ...config, root, configFile: false, logLevel: 'silent' })
      } else if (tool === 'rollup') {
        const config = await importConfig<RollupOptions>(join(root, 'rollup.config.mjs'))
        const bundle = await rollup({ ...config, onwarn: () => {} })
        await bundle.write(config.output as never)
        await bundle.close()
      } else if (tool === 'esbuild') {
        const config = await importConfig<esbuild.BuildOptions>(join(root, 'esbuild.config.mjs'))
        await esbuild.build({ ...config, logLevel: 'silent' })
      } else {
        const compiler = webpack(await importConfig<webpack.Configuration>(join(root, 'webpack.config.mjs')))
        const stats = await new Promise<webpack.Stats>((resolve, reject) => compiler.run((error, result) => (error ? reject(error) : resolve(result!))))
        await new Promise((resolve) => compiler.close(resolve))
        expect(stats.hasErrors(), stats.toString('errors-only')).toBe(false)
      }
      trees.set(tool, await readTree(root, (path) => !TREE.test(path)))
    }
    const vite = trees.get('vite')!
    expect([...vite.keys()].filter((path) => !path.startsWith('scripts/vendor/'))).toEqual(
      expect.arrayContaining(['.mcp.json', 'scripts/forecast.mjs', 'scripts/convert_units.mjs', '.claude/agents/planner.md', 'prompts/triager.md', 'scripts/forecast_chart.mjs', 'scripts/delete_report.mjs', '.agents/skills/weather-reports/SKILL.md', '.claude/skills/weather-reports/scripts/forecast.mjs', '.gemini/commands/forecast.toml']),
    )
    // The prod config's approval rules: read-only tools run without asking, the destructive one always asks;
    // and the guard hook, before delete_report and the shell.
    expect(JSON.parse(vite.get('.claude/settings.json')!)).toEqual({
      permissions: {
        allow: ['mcp__oac-tools__sample_value', 'mcp__oac-tools__forecast', 'mcp__oac-tools__forecast_chart', 'mcp__oac-tools__convert_units', 'mcp__oac-tools__search_issues'],
        ask: ['mcp__oac-tools__delete_report'],
      },
      hooks: {
        PreToolUse: [
          {
            matcher: '^(?:mcp__oac-tools__delete_report|Bash)$',
            hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/scripts/hooks/guard.mjs" --harness claude', timeout: 15 }],
          },
        ],
      },
    })
    expect([...vite.keys()].filter((path) => /hooks|plugins/.test(path) && !path.startsWith('scripts/vendor/')).sort()).toEqual([
      '.codex/hooks.json',
      '.github/hooks/oac-tools.json',
      '.kilo/plugins/oac-tools-hooks.ts',
      '.omp/extensions/oac-tools-hooks.ts',
      '.opencode/plugins/oac-tools-hooks.ts',
      '.pi/extensions/oac-tools-hooks.ts',
      'scripts/hooks/guard.code.mjs',
      'scripts/hooks/guard.code.mjs.map',
      'scripts/hooks/guard.mjs',
    ])
    expect(JSON.parse(vite.get('.opencode/opencode.json')!)).toEqual({
      permission: { sample_value: 'allow', forecast: 'allow', forecast_chart: 'allow', convert_units: 'allow', search_issues: 'allow', delete_report: 'ask' },
    })
    expect(JSON.parse(vite.get('.gemini/settings.json')!).tools).toEqual({
      allowed: ['mcp_oac-tools_sample_value', 'mcp_oac-tools_forecast', 'mcp_oac-tools_forecast_chart', 'mcp_oac-tools_convert_units', 'mcp_oac-tools_search_issues'],
      confirmationRequired: ['mcp_oac-tools_delete_report'],
    })
    // forecast's output schema reaches MCP clients; the image tool and the destructive one carry their effects.
    const server = vite.get('scripts/mcp_tools_server.cjs')!
    expect(server).toMatch(/name: "forecast",[\s\S]*?outputSchema: JSON\.parse/)
    expect(server).toContain('annotations: JSON.parse("{\\"destructiveHint\\":true,\\"idempotentHint\\":true}")')
    expect(trees.get('rollup')).toEqual(vite)
    expect(trees.get('esbuild')).toEqual(vite)
    expect(trees.get('webpack')).toEqual(vite)
  })
})
