import { Writable } from 'node:stream'

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
  const protocolWrite = stdout.write.bind(stdout) as (chunk: Uint8Array | string) => boolean
  const stderrWrite = process.stderr.write.bind(process.stderr)
  stdout.write = stderrWrite as typeof stdout.write
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (protocolWrite(chunk)) callback()
      else stdout.once('drain', () => callback())
    },
  })
}
