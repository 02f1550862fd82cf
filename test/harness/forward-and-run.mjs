// Run inside a network namespace of its own (see loopback-only.ts): forwards 127.0.0.1:<port>,
// where the harness expects its model, to the scripted model's Unix socket outside, then runs
// the harness command and exits with its code.
import { spawn } from 'node:child_process'
import { connect, createServer } from 'node:net'

const [port, socket, command, ...args] = process.argv.slice(2)
const forwarder = createServer((client) => {
  const upstream = connect(socket)
  client.on('error', () => upstream.destroy())
  upstream.on('error', () => client.destroy())
  client.pipe(upstream).pipe(client)
})
forwarder.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' })
  child.on('error', (error) => {
    console.error(`forward-and-run: ${error.message}`)
    process.exit(127)
  })
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)))
})
