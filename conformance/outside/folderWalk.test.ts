import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WalkError, walkFolder } from './folderWalk.ts';
import type { FolderEntry } from './folderWalk.ts';

/** Walking a folder from outside: links reported and never followed, the count bounded as entries are read. */
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-folder-walk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tree = join(dir, 'tree');
mkdirSync(join(tree, 'b', 'c'), { recursive: true });
writeFileSync(join(tree, 'a.json'), '{}');
writeFileSync(join(tree, 'b', 'd.json'), '{}');
writeFileSync(join(tree, 'b', 'c', 'e.xml'), '<x/>');
symlinkSync('.', join(tree, 'self'));
symlinkSync('..', join(tree, 'b', 'up'));
symlinkSync('/', join(tree, 'root'));

async function walk(root: string, maxEntries: number, recursive = true): Promise<FolderEntry[]> {
  const seen: FolderEntry[] = [];
  for await (const entry of walkFolder(root, { maxEntries, recursive })) seen.push(entry);
  return seen;
}

describe.skipIf(process.platform === 'win32')('walking a folder', () => {
  it('gives every entry once, in the order of its names, and reports links without following them', async () => {
    const seen = (await walk(tree, 100)).map((e) => `${relative(tree, e.path)} ${e.kind}`);
    expect(seen).toEqual([
      'a.json file',
      'b folder',
      'root link',
      'self link',
      'b/c folder',
      'b/d.json file',
      'b/up link',
      'b/c/e.xml file',
    ]);
  });

  it('goes into no subfolder unless asked', async () => {
    expect((await walk(tree, 100, false)).map((e) => e.name)).toEqual(['a.json', 'b', 'root', 'self']);
  });

  it('stops as soon as the count passes its limit, having given no more entries than the limit', async () => {
    const wide = join(dir, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < 50; i++) writeFileSync(join(wide, `${i}.json`), '');
    const seen: string[] = [];
    const walked = (async () => {
      for await (const entry of walkFolder(dir, { maxEntries: 20, recursive: true })) seen.push(entry.name);
    })();
    await expect(walked).rejects.toMatchObject({ name: 'WalkError', code: 'too_many_entries', path: dir });
    expect(seen.length).toBeLessThanOrEqual(20);
  });

  it('says which folder it cannot read', async () => {
    const file = join(tree, 'a.json');
    await expect(walk(file, 10)).rejects.toBeInstanceOf(WalkError);
    await expect(walk(file, 10)).rejects.toMatchObject({
      code: 'unreadable',
      path: file,
      message: 'it is not a folder',
    });
  });
});
