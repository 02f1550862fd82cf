import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = fileURLToPath(new URL('.', import.meta.url))

/** Bundles test/write/children/writer.ts (and our write stage) into one script plain node runs. */
export async function bundleWriter(): Promise<string> {
  const folder = join(here, '..', '.tmp')
  await mkdir(folder, { recursive: true })
  const outfile = join(await mkdtemp(join(folder, 'writer-')), 'writer.mjs')
  await build({
    entryPoints: [join(here, 'children', 'writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  })
  return outfile
}

export function runWriter(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function exited(child: ChildProcess): Promise<Exit> {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })))
}
