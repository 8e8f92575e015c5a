/**
 * Walking a folder from outside (a CI system's download of a check's parts, a report directory's
 * `runs/`) within a bound. Links are reported as links and never followed, so a link to `.` or to
 * `/` leads nowhere; every entry read (file, folder, link or other) is counted as it is read, and
 * the walk stops with a WalkError the moment the count passes its limit, before the rest of a
 * large tree is looked at. Each folder's entries come in the order of their names, a folder's own
 * entries before those of its subfolders; the walk keeps at most one folder's names at a time,
 * beside the folders still to visit.
 */
import type { Dirent } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { CodedError } from '../../contract/CodedError.ts';
import { codeOf, messageOf } from '../../contract/index.ts';

/** What an entry of a walked folder is. `other`: a FIFO, a device or a socket. */
export type EntryKind = 'file' | 'folder' | 'link' | 'other';

/** An entry of a walked folder. */
export interface FolderEntry {
  /** The entry's path: the walked folder's path joined with the names down to it. */
  readonly path: string;
  readonly name: string;
  readonly kind: EntryKind;
}

/** Stable codes of a walk that stopped. */
export type WalkErrorCode =
  /** More entries than the limit. */
  | 'too_many_entries'
  /** A folder that cannot be read (permissions, not a folder, a name too long). */
  | 'unreadable';

/** A walk that stopped: stable `code`, the `path` of the folder walked or of the one that failed. */
export class WalkError extends CodedError<WalkErrorCode> {
  override name = 'WalkError' as const;
  constructor(
    code: WalkErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Options of walkFolder. */
export interface WalkOptions {
  /** Most entries read in the whole walk; one more is a WalkError `too_many_entries`. */
  readonly maxEntries: number;
  /** Whether to go into subfolders (never into links). */
  readonly recursive: boolean;
}

const kindOf = (entry: Dirent): EntryKind =>
  entry.isSymbolicLink() ? 'link' : entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : 'other';

/** The entries under `root` (module header): links never followed, the count checked as they are read. */
export async function* walkFolder(root: string, options: WalkOptions): AsyncGenerator<FolderEntry> {
  let read = 0;
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const entries: FolderEntry[] = [];
    try {
      for await (const entry of await opendir(dir)) {
        read += 1;
        if (read > options.maxEntries)
          throw new WalkError(
            'too_many_entries',
            root,
            `more than ${options.maxEntries} entries (files, folders and links) under it`,
          );
        entries.push({ path: join(dir, entry.name), name: entry.name, kind: kindOf(entry) });
      }
    } catch (error) {
      if (error instanceof WalkError) throw error;
      const why = codeOf(error) === 'ENOTDIR' ? 'it is not a folder' : `cannot read the folder: ${messageOf(error)}`;
      throw new WalkError('unreadable', dir, why, { cause: error });
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const folders: string[] = [];
    for (const entry of entries) {
      yield entry;
      if (entry.kind === 'folder' && options.recursive) folders.push(entry.path);
    }
    pending.push(...folders.reverse());
  }
}
