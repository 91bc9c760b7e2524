// SPDX-License-Identifier: BSL-1.0
// Loader hooks for fs-globsync-shim.mjs. The suite calls globSync in one way only:
// `globSync('**/checks.json', { cwd })` — relative paths of matching files below `cwd`.
// Supported patterns: `**/NAME`, `DIR/**/NAME` and literal relative paths (no other wildcards).
import * as fs from 'node:fs';

const SHIM_URL = 'candor-shim:fs';

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== SHIM_URL && !('globSync' in fs)) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url !== SHIM_URL) return next(url, context);
  const names = Object.keys(fs).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
  const source = `
import fs from 'node:fs';
import * as path from 'node:path';
${names.map((n) => `export const ${n} = fs.${n};`).join('\n')}
export default fs;
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const parts = String(pattern).split('/');
  const deep = parts.indexOf('**');
  if (deep < 0) return fs.existsSync(path.join(cwd, pattern)) ? [pattern] : [];
  if (parts.slice(deep + 1).some((p) => p.includes('*')) || parts.slice(0, deep).some((p) => p.includes('*')))
    throw new Error('fs-globsync-shim: unsupported pattern ' + pattern);
  const base = parts.slice(0, deep).join('/');
  const tail = parts.slice(deep + 1).join('/');
  const root = path.join(cwd, base);
  if (!fs.existsSync(root)) return [];
  const out = [];
  for (const entry of fs.readdirSync(root, { recursive: true })) {
    const rel = String(entry).split(path.sep).join('/');
    if (rel === tail || rel.endsWith('/' + tail)) out.push(base ? base + '/' + rel : rel);
  }
  return out;
}
`;
  return { format: 'module', source, shortCircuit: true };
}
