import { describe, expect, it } from 'vitest'
import { run } from './process.js'

describe('run', () => {
  it('gives the exit of a child that ends before it reads its input, with no EPIPE error', async () => {
    // More than any pipe holds (64 KiB by default, 1 MiB at most): the write cannot finish before the
    // child exits, so it always fails with EPIPE, which must not surface as an uncaught error.
    const input = 'x'.repeat(4 * 1024 * 1024)
    const result = await run(process.execPath, ['-e', 'process.exit(3)'], { cwd: process.cwd(), stdin: input })
    expect(result).toEqual({ code: 3, stdout: '', stderr: '' })
  })
})
