import { isAbsolute, relative, sep } from 'node:path'

/** A path relative to the project root with POSIX separators (`..` where the file lies outside it). */
export function projectPath(root: string, file: string): string {
  if (!isAbsolute(file)) return file
  return relative(root, file).split(sep).join('/')
}
