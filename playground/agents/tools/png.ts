import { crc32, deflateSync } from 'node:zlib'

/**
 * A PNG of `width` x `height` pixels, each `[r, g, b]` from `pixel(x, y)`: the PNG format's
 * signature, header, one compressed image chunk and its end, with nothing but node:zlib.
 */
export function png(width: number, height: number, pixel: (x: number, y: number) => readonly [number, number, number]): Uint8Array {
  // Each row starts with its filter type (0: none), then three bytes per pixel.
  const rows = Buffer.alloc(height * (1 + width * 3))
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), y * (1 + width * 3) + 1 + x * 3)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits per channel, RGB, default compression, filter and interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))])
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const check = Buffer.alloc(4)
  check.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, check])
}
