import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { runBounded } from '../bounded-run.js'
import { HARNESS_TABLE } from '../compile/harnesses/index.js'
import type { DoctorFix, DoctorNames, DoctorPlace, DoctorProbe, DoctorReading, HarnessDescription } from '../compile/harnesses/types.js'
import { HARNESSES, type Harness } from '../define/types.js'
import { type Manifest, manifestPath, readManifest } from '../write/manifest.js'
import { owners } from '../write/owners.js'
import { findBin, packageVersion } from './run.js'

/*
 * `oac doctor`: asks each installed harness CLI, with its own model-free command, whether it sees what
 * the compile wrote into a target, and names the one-time step each still waits for. It reads the
 * target's manifest for what the tree holds and changes nothing. What varies by harness is in its
 * description's `doctor` entry (src/compile/harnesses/).
 */

export interface DoctorOptions {
  /** The compiled project folder (default `.`), or with `scope: 'user'` the home (default `os.homedir()`). */
  target?: string
  scope?: 'project' | 'user'
  /** The server whose tree is checked, when the target holds several (default: the only one). */
  serverName?: string
  /** The environment the harness CLIs run in, and whose PATH finds them (default `process.env`). */
  env?: NodeJS.ProcessEnv
  /** How long one probe may take before it counts as failed (default 120 s: Kilo loads slowly). */
  timeoutMs?: number
}

/**
 * `ready`: it sees our tools; `not-installed`: no CLI on PATH (skipped); `unprobed`: it has no command
 * that could tell, and no step to take; `needs-step`: it waits for the user's one-time steps in `fixes`;
 * `failed`: it does not see our tools for another reason (`problem`).
 */
export type HarnessStatus = 'ready' | 'not-installed' | 'unprobed' | 'needs-step' | 'failed'

export interface HarnessCheck {
  harness: Harness
  title: string
  status: HarnessStatus
  /** The CLI run, and its version where its package says. */
  bin?: string
  version?: string
  /** What it sees, when ready. */
  sees?: string
  /** Why it is unprobed, or what failed. */
  detail?: string
  fixes: DoctorFix[]
}

export interface DoctorReport {
  /** True when every installed harness the tree holds files for sees our tools. */
  ok: boolean
  target: string
  scope: 'project' | 'user'
  server: string
  /** One per harness the tree holds files for, in the order of `HARNESSES`. */
  harnesses: HarnessCheck[]
}

/** A target that holds no compiled tree, or one too many: the CLI prints it as a usage problem. */
export class DoctorError extends Error {}

export const DEFAULT_PROBE_TIMEOUT_MS = 120_000

export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const scope = options.scope ?? 'project'
  const env = options.env ?? process.env
  const home = resolve(env.HOME || homedir())
  const target = scope === 'user' ? resolve(options.target ?? home) : resolve(options.target ?? '.')
  const server = await chooseServer(target, options.serverName)
  const { manifest, diagnostics } = await readManifest(join(target, manifestPath(server)), manifestPath(server), server)
  if (diagnostics.length > 0) throw new DoctorError(diagnostics.map((d) => `${d.message} ${d.fix}`).join('\n'))
  const paths = [...Object.keys(manifest.files), ...Object.keys(manifest.merges)]
  const place: DoctorPlace = { target, scope, home, env, server }
  // The manifest names the harnesses; one of an earlier build does not, and the files it lists tell.
  const held = HARNESSES.filter((id) => (manifest.harnesses ? manifest.harnesses.includes(id) : holds(HARNESS_TABLE[id], paths, scope)))
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS
  const harnesses = await Promise.all(held.map((id) => check(HARNESS_TABLE[id], place, names(HARNESS_TABLE[id], manifest, server, scope), timeoutMs)))
  return { ok: harnesses.every((h) => h.status !== 'needs-step' && h.status !== 'failed'), target, scope, server, harnesses }
}

async function chooseServer(target: string, named: string | undefined): Promise<string> {
  const found = await owners(target)
  if (named !== undefined) {
    if (found.includes(named)) return named
    throw new DoctorError(`${target} holds no tree of ${named}${found.length > 0 ? ` (it holds ${found.join(', ')})` : ''}: compile into it first, or name the server its compile used.`)
  }
  if (found.length === 1) return found[0]!
  if (found.length === 0) throw new DoctorError(`${target} holds no compiled tree (no .oac/manifest.<server>.json): run oac compile into it first, or point --target at the folder it wrote.`)
  throw new DoctorError(`${target} holds the trees of ${found.join(', ')}: name one with --server-name.`)
}

/** A project path of the harness as it lies in the target: moved into the home by `userScope` for a user's install. */
function inTarget(description: HarnessDescription, path: string, scope: 'project' | 'user'): string | undefined {
  if (scope === 'project') return path
  for (const [project, home] of description.userScope.paths) {
    if (project.endsWith('/') ? path.startsWith(project) : path === project) return home + path.slice(project.length)
  }
  return undefined
}

/** Whether the tree holds a file the harness reads (where a manifest of an earlier build does not name the harnesses). */
function holds(description: HarnessDescription, paths: readonly string[], scope: 'project' | 'user'): boolean {
  return description.doctor.reads.some((read) => {
    const where = inTarget(description, read, scope)
    if (where === undefined) return false
    return where.endsWith('/') ? paths.some((path) => path.startsWith(where)) : paths.includes(where)
  })
}

/** The tools the harness's own tool files in the tree name. */
function names(description: HarnessDescription, manifest: Manifest, server: string, scope: 'project' | 'user'): DoctorNames {
  const toolFile = description.doctor.toolFile
  if (!toolFile) return { server, tools: [] }
  // The file of a tool named by a marker the path cannot otherwise hold, split around it.
  const [before = '', after = ''] = (inTarget(description, toolFile('\0'), scope) ?? '').split('\0')
  const tools = Object.keys(manifest.files)
    .filter((path) => before !== '' && path.startsWith(before) && path.endsWith(after) && !path.slice(before.length, path.length - after.length).includes('/'))
    .map((path) => path.slice(before.length, path.length - after.length))
  return { server, tools: tools.sort() }
}

async function check(description: HarnessDescription, place: DoctorPlace, names: DoctorNames, timeoutMs: number): Promise<HarnessCheck> {
  const base = { harness: description.id, title: description.title }
  const bin = await findBin(description.proof.cli.bin, place.env.PATH)
  if (!bin) return { ...base, status: 'not-installed', detail: `no ${description.proof.cli.bin} on PATH`, fixes: [] }
  const version = await packageVersion(bin, description.proof.cli.package)
  const found = { ...base, bin, ...(version !== undefined && { version }) }
  const { doctor: entry } = description
  if ('unprobed' in entry.probe) return { ...found, status: 'unprobed', detail: entry.probe.unprobed, fixes: [] }
  // A file the CLI would fetch on start: its probe would reach the network, so it is not run.
  const missing = (entry.needs?.(place, version) ?? []).filter((need) => !existsSync(need.file))
  if (missing.length > 0) return { ...found, status: 'needs-step', fixes: missing.map((need) => need.fix) }
  const probes = [entry.probe, ...(entry.hooks && holdsFile(place, description, entry.hooks.file) ? [entry.hooks.probe] : [])]
  const sees: string[] = []
  for (const probe of probes) {
    const reading = await ask(bin, probe, place, names, timeoutMs)
    if ('sees' in reading) sees.push(reading.sees)
    else if ('problem' in reading) return { ...found, status: 'failed', detail: reading.problem, fixes: [] }
    else if ('fix' in reading) return { ...found, status: 'needs-step', fixes: [reading.fix] }
    else {
      const fix = entry.fixes[reading.step]
      if (!fix) throw new Error(`${description.id}'s doctor reads a step "${reading.step}" it has no fix for`)
      return { ...found, status: 'needs-step', fixes: [fix(place)] }
    }
  }
  return { ...found, status: 'ready', sees: sees.join('; '), fixes: [] }
}

/** Runs one probe and reads it; a run that did not finish, or failed, is a problem that says so. */
async function ask(bin: string, probe: DoctorProbe, place: DoctorPlace, names: DoctorNames, timeoutMs: number): Promise<DoctorReading> {
  const args = probe.args(names)
  const session = probe.session && { lines: probe.session.lines(place), until: probe.session.until }
  const run = await runBounded(bin, args, { cwd: place.target, env: { ...place.env, ...probe.env }, timeoutMs, ...(session && { session }) })
  if (run.timedOut) return { ready: false, problem: `\`${basename(bin)} ${args.join(' ')}\` did not finish in ${Math.round(timeoutMs / 1000)} s` }
  const reading = probe.read(run, names, place)
  if (!('problem' in reading) || run.code === 0) return reading
  return { ready: false, problem: `${reading.problem} (it exited with ${run.code}: ${errorLine(run.stderr)})` }
}

/** Whether the target holds a file of the harness's (a project path, moved into the home for a user's install). */
function holdsFile(place: DoctorPlace, description: HarnessDescription, file: string): boolean {
  const where = inTarget(description, file, place.scope)
  return where !== undefined && existsSync(join(place.target, where))
}

/** The line of a CLI's stderr that says what went wrong: its first error line, else its last line. */
function errorLine(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean)
  return lines.find((line) => /error/i.test(line)) ?? lines.at(-1) ?? 'nothing on stderr'
}
