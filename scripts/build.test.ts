/**
 * When `npm pack` keeps the dist/ a build left (scripts/build.mjs `--reuse`, the prepack script):
 * only when its stamp names the sources there are now and it holds exactly the files that build
 * listed, at the sizes it wrote; a file added, removed or changed in size, a stamp of other
 * sources or a missing listing make the pack build again from a clean folder. On a folder of its
 * own, never this checkout's dist/.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a script of plain JavaScript, without declarations.
import { distListing, reusable } from './build.mjs';

const reusableOf = reusable as (dist: string, hash: string) => boolean;
const listingOf = distListing as (dist: string) => string;

const dist = mkdtempSync(join(tmpdir(), 'jobcheck-build-'));
afterAll(() => rmSync(dist, { recursive: true, force: true }));

/** A dist/ as a build of sources hashed `h` leaves it: two files, the stamp, the listing. */
beforeEach(() => {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(join(dist, 'model', 'fixtures'), { recursive: true });
  writeFileSync(join(dist, 'model', 'index.js'), 'export {};\n');
  writeFileSync(join(dist, 'model', 'fixtures', 'a.json'), '{}\n');
  writeFileSync(join(dist, '.sources-hash'), 'h');
  writeFileSync(join(dist, '.files'), listingOf(dist));
});

describe('a dist/ kept by npm pack', () => {
  it('is kept as its build left it, and its listing names every file but itself, with its size', () => {
    expect(listingOf(dist)).toBe('.sources-hash 1\nmodel/fixtures/a.json 3\nmodel/index.js 11\n');
    expect(reusableOf(dist, 'h')).toBe(true);
  });

  it('is built again when its stamp names other sources', () => {
    expect(reusableOf(dist, 'other')).toBe(false);
  });

  it('is built again when a file was added after its build, even one its build never writes', () => {
    writeFileSync(join(dist, 'model', 'stale.js'), '');
    expect(reusableOf(dist, 'h')).toBe(false);
  });

  it('is built again when a file is gone, or changed in size', () => {
    unlinkSync(join(dist, 'model', 'fixtures', 'a.json'));
    expect(reusableOf(dist, 'h')).toBe(false);
    writeFileSync(join(dist, 'model', 'fixtures', 'a.json'), '{}\n');
    expect(reusableOf(dist, 'h')).toBe(true);
    writeFileSync(join(dist, 'model', 'index.js'), 'export const x = 1;\n');
    expect(reusableOf(dist, 'h')).toBe(false);
  });

  it('is built again without a listing (a dist/ of a build before listings) or without a stamp', () => {
    unlinkSync(join(dist, '.files'));
    expect(reusableOf(dist, 'h')).toBe(false);
    writeFileSync(join(dist, '.files'), listingOf(dist));
    unlinkSync(join(dist, '.sources-hash'));
    expect(reusableOf(dist, 'h')).toBe(false);
  });
});
