/**
 * beanstalkd's clock, moved by the adapter. The server runs under libfaketime with
 * `FAKETIME_TIMESTAMP_FILE` naming a file and `FAKETIME_NO_CACHE=1`, so every time it reads the
 * clock it reads that file; an absolute time written there (`2026-01-01 00:00:05.005003`, no
 * leading `@`) is a stopped clock at that instant. Tick `n` of an instance is its origin plus `n`
 * seconds plus `n` milliseconds. The milliseconds are there because beanstalkd expires a
 * reservation only when its deadline is strictly past, and a timer checked at exactly its deadline
 * under a stopped clock is dropped from its heap until that connection's next command: with the
 * margin, tick `c + k` is a little after any deadline set `k` seconds after tick `c`, never equal.
 *
 * Within a tick the clock creeps one microsecond before every request (`creep`, at most 999 in a
 * tick, inside the tick's margin), as real time moves between requests: under a clock that stood
 * still across requests beanstalkd 1.12 crashed (a segmentation fault after a few hundred requests
 * of a profile), a state no server on a real clock is ever in. The file is written beside itself
 * and renamed over, so the server never reads it half written.
 *
 * Instances share the server and its file, so each starts beyond every time already written (the
 * clock only moves forward); a profile runs its instances one at a time.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { BeanstalkdAdapterError } from './BeanstalkdAdapterError.ts';
import { messageOf } from '../../contract/index.ts';

/** Seconds between one instance's origin and the last time written before it. */
const GAP_SECONDS = 1000;

/** The latest time written to each file by this process, in microseconds since the epoch. */
const written = new Map<string, number>();

/** `2026-01-01 00:00:05.000005` for an instant in microseconds since the epoch (UTC). Pure. */
export function faketimeText(micros: number): string {
  const seconds = Math.floor(micros / 1e6);
  const fraction = String(micros - seconds * 1e6).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')}.${fraction}`;
}

/** The microseconds a timestamp file holds (its text as libfaketime reads it, in UTC). Pure. */
export function parseFaketimeText(text: string): number {
  const m = /^@?(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?/.exec(text.trim());
  if (m === null) return Number.NaN;
  const whole = Date.parse(`${m[1]}T${m[2]}Z`) * 1000;
  return whole + Number((m[3] ?? '0').padEnd(6, '0').slice(0, 6));
}

/** The stopped clock of one adapter instance over a timestamp file. */
export class FaketimeClock {
  private readonly origin: number;

  /** Starts the instance's tick 0 beyond any time the file holds; throws `no_clock` when it cannot be written. */
  constructor(readonly file: string) {
    let current = written.get(file) ?? 0;
    try {
      const held = parseFaketimeText(readFileSync(file, 'utf8'));
      if (Number.isFinite(held)) current = Math.max(current, held);
    } catch {
      // A missing or unreadable file: the first write below says whether it can be used.
    }
    if (current === 0) current = Date.UTC(2026, 0, 1) * 1000;
    this.origin = (Math.ceil(current / 1e6) + GAP_SECONDS) * 1e6;
    this.set(0);
  }

  private tick = 0;
  private crept = 0;

  /** Writes tick `n` (origin + n s + n ms) to the file. */
  set(n: number): void {
    this.tick = n;
    this.crept = 0;
    this.write();
  }

  /** Moves the clock on by one microsecond within its tick, as real time moves between two requests. */
  creep(): void {
    this.crept += 1;
    this.write();
  }

  private write(): void {
    const n = this.tick;
    const micros = this.origin + n * 1e6 + n * 1000 + Math.min(this.crept, 999);
    try {
      // Written beside it and renamed over it: beanstalkd reads the file on every clock read, and a
      // write in place lets it read a file truncated but not yet written (libfaketime then crashed
      // the server with a segmentation fault after a few thousand moves). A rename is atomic.
      const next = `${this.file}.next`;
      writeFileSync(next, `${faketimeText(micros)}\n`);
      renameSync(next, this.file);
    } catch (error) {
      throw new BeanstalkdAdapterError(
        'no_clock',
        `cannot write beanstalkd's libfaketime timestamp file ${this.file}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    written.set(this.file, Math.max(written.get(this.file) ?? 0, micros));
  }
}
