/**
 * Profiles that survive their broker, on every real queue, through the real command: a throw-away
 * server of the queue's own (scripts/brokers.sh or scripts/pg.sh, in a process group of its own)
 * is killed with SIGKILL a few seconds into `jobcheck profile --module adapters/<x>/profile.ts`
 * (an SQS emulator, which the profile starts itself, once it has answered for a while).
 * The profile must end within a bound, INCOMPLETE (exit 3), name the lost broker once, leave the
 * rules the loss touched `unknown` (never departing, flaky or not reached because of it), and
 * leave no process behind. With no server at all: adapters/brokerAbsent.test.ts.
 *
 * Each case needs its server's binaries (Debian's packages); without them it is skipped with a
 * hint, and with `CI` set it fails.
 */
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../contract/rules.ts';
import {
  EXIT_INCOMPLETE,
  QUEUES,
  cleanEnv,
  installed,
  jobcheck,
  limiter,
  required,
  ruleLines,
  startServer,
} from './brokerLossCases.ts';

// Two cases at a time, each with a server of its own (the servers wait more than they compute).
const twoAtATime = limiter(2);

describe.concurrent('a broker killed mid-profile', () => {
  describe.each(QUEUES)('$name', (q) => {
    const missing = installed(q.binary) ? undefined : `${q.binary} is not installed (Debian's package)`;
    const skip = missing !== undefined && !required;

    it.skipIf(skip)(
      'a profile whose broker is killed a few seconds in ends INCOMPLETE, the touched rules unknown',
      () =>
        twoAtATime(async () => {
          if (missing !== undefined) throw new Error(missing);
          const server = await startServer(q);
          let killed = false;
          let timer: NodeJS.Timeout | undefined;
          // Ten times the default runs, so that the kill always meets a running profile: at 30 runs a
          // rule, beanstalkd's whole profile once ended before its kill at 6 s.
          const run = await jobcheck(
            ['profile', '--module', q.module, '--runs', '300', '--time-limit', '60s'],
            cleanEnv(server.env),
            // The time limit, and as long again for what a lost broker may hold up: never more.
            120_000,
            () => {
              // A few seconds in, once the server answers: an emulator the profile starts, as soon as it has for a while.
              const fire = (): void => {
                if (server.ready?.() === false) {
                  timer = setTimeout(fire, 200);
                  return;
                }
                server.kill();
                killed = true;
              };
              timer = setTimeout(fire, q.server === 'emulator' ? 0 : 6_000);
            },
          );
          clearTimeout(timer);
          const text = `${run.out}${run.err}`;
          // A profile may end before the kill only because its server ended by itself (beanstalkd 1.12
          // under libfaketime has been seen to crash): a lost broker all the same.
          expect(killed || !server.alive(), `the profile ended before the kill, its server still up: ${text}`).toBe(
            true,
          );
          expect(run.code, text).toBe(EXIT_INCOMPLETE);
          // Said once, not once a run: the broker lost, and its address, on one line.
          expect(text.match(/^broker lost: /gm)?.length, text).toBe(1);
          const address = /^broker lost: \S+ at (\S+):/m.exec(text)?.[1] ?? '(none)';
          expect(text.split('\n').filter((l) => l.includes(address)).length, text).toBe(1);
          expect(text).not.toMatch(/could not be started/);
          const rules = ruleLines(run.out);
          expect(rules.size, text).toBe(RULE_IDS.length);
          const statuses = [...rules.values()];
          expect(
            statuses.some((s) => s.startsWith('unknown')),
            text,
          ).toBe(true);
          expect(
            statuses.filter((s) => /^(flaky|not reached)/.test(s)),
            text,
          ).toEqual([]);
          // A departure counted before the loss is the queue's, and so is a divergence no rule decides
          // (beanstalkd's page lists some): none is the loss's doing.
          for (const block of text
            .split(/\n\n(?=\S)/)
            .filter((b) => b.startsWith('departs on ') || b.startsWith('a divergence no rule decides')))
            expect(block, text).not.toMatch(/broker_lost|ECONNREFUSED|ECONNRESET|connection closed|Unexpected close/);
          expect(run.leftover, text).toEqual([]);
        }),
      // Beyond the command's own bound (120 s), RabbitMQ's start and the servers' stop.
      // Twice: a case may wait for the one before it.
      480_000,
    );
  });
});
