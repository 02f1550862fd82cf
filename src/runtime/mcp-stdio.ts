import type { Writable } from 'node:stream'

/**
 * Takes stdout away from everyone but the MCP transport.
 *
 * The protocol owns stdout: one stray `console.log` in tool code would be read by the client as a
 * broken JSON-RPC message. From this call on, `process.stdout.write` (and so `console.log`,
 * `console.info`, ...) goes to stderr, which clients show as server logs. The returned stream is
 * the only way left to the real stdout; hand it to the transport.
 */
export function divertStdout(): Writable {
  const stdout = process.stdout
  const protocolWrite = stdout.write.bind(stdout) as (chunk: Uint8Array | string, written: () => void) => boolean
  const stderrWrite = process.stderr.write.bind(process.stderr)
  stdout.write = stderrWrite as typeof stdout.write
  // Writes to a pipe complete asynchronously: `end()` waits until every message is out, so a server
  // that exits right after (stdin closed) does not cut off a reply it already sent.
  let unwritten = 0
  let whenWritten: (() => void) | undefined
  const written = () => {
    if (--unwritten === 0) whenWritten?.()
  }
  // A built-in taken as in runtime/start.ts.
  const { Writable } = process.getBuiltinModule('node:stream')
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      unwritten++
      if (protocolWrite(chunk, written)) callback()
      else stdout.once('drain', () => callback())
    },
    final(callback) {
      if (unwritten === 0) callback()
      else whenWritten = () => callback()
    },
  })
}
