import { parseArgs } from 'node:util'
import { DoctorError, doctor } from '../doctor/index.js'
import { formatDoctor } from '../doctor/format.js'

/** `oac doctor [--target <dir> | --scope user] [--server-name <name>] [--timeout <s>] [--json]`: exit 0 when every installed harness sees the tools, 1 otherwise, 2 on a bad command line. */
export async function doctorCommand(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values: { target?: string; scope?: string; 'server-name'?: string; timeout?: string; json?: boolean; reporter?: string }
  try {
    ;({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { target: { type: 'string' }, scope: { type: 'string' }, 'server-name': { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' }, reporter: { type: 'string' } },
    }))
    if (values.scope !== undefined && values.scope !== 'project' && values.scope !== 'user') throw new Error(`--scope must be project or user, not "${values.scope}"`)
    if (values.scope === 'user' && values.target !== undefined) throw new Error('--scope user checks your home folder: leave out --target')
    if (values.reporter !== undefined && values.reporter !== 'text' && values.reporter !== 'json') throw new Error(`--reporter must be text or json, not "${values.reporter}"`)
    if (values.timeout !== undefined && !(Number(values.timeout) > 0)) throw new Error(`--timeout takes seconds, a number above 0, not "${values.timeout}"`)
  } catch (error) {
    err(`oac doctor: ${error instanceof Error ? error.message : String(error)}\nRun "oac --help" for usage.\n`)
    return 2
  }
  const json = values.json === true || values.reporter === 'json'
  try {
    const report = await doctor({
      ...(values.target !== undefined && { target: values.target }),
      ...(values.scope === 'user' && { scope: 'user' as const }),
      ...(values['server-name'] !== undefined && { serverName: values['server-name'] }),
      ...(values.timeout !== undefined && { timeoutMs: Number(values.timeout) * 1000 }),
    })
    out(json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report))
    return report.ok ? 0 : 1
  } catch (error) {
    if (!(error instanceof DoctorError)) throw error
    if (json) out(`${JSON.stringify({ ok: false, error: error.message }, null, 2)}\n`)
    else err(`oac doctor: ${error.message}\n`)
    return 1
  }
}
