import { defineConfig } from 'vitest/config';

/**
 * The suite in two parts. `quick` (`npm test`, the README's command) is every test file except the
 * ones listed below; it is meant to finish within 4 minutes on an idle two-core machine. `slow`
 * (`npm run test:slow`) is the list below: long scenarios, real installs, campaigns against durable
 * stores, runs that wait out timeouts on purpose. Its vitest projects are `slow` and `slow-pairs`
 * (SLOW_IN_PAIRS), one file at a time each; `npm run test:slow` (scripts/testSlow.sh) runs the two
 * at once, so no file runs beside more than one other. CI (`.ci/run`) runs both parts. A new test file
 * is quick unless it is added here; vitest.config.test.ts holds the list to existing files and
 * every test file to exactly one part.
 *
 * Times are one file's duration in a CI run on a loaded two-core machine (vitest runs one file at
 * a time there: its default is one worker fewer than the cores); "a loaded machine" marks files
 * timed alone under a heavier load. A file whose slowness is one heavy case among quick ones stays
 * quick unless its weight alone breaks the budget.
 */

/** Test files of the slow part, as paths from the repository's root: each a file that exists. */
export const SLOW_TESTS: readonly string[] = [
  // One hostile case of each cause (conformance/hostile/causes.ts) through the real command, each
  // up to its time limit; `npm run hostile` runs them all.
  'conformance/hostile/hostile.test.ts',
  // ~60 s (a loaded machine): every decision bug of the catalogue on SQLite and PostgreSQL stores,
  // each a campaign that stops where it finds the bug, then shrinks it.
  'conformance/broken/decisionBugs.test.ts',
  // ~35 s: the SQLite store through fixtures, the path suite, a 150-run campaign with restarts and
  // the exploration (most of the time: a file a state).
  'conformance/stores/sqlite.test.ts',
  // ~40 s (a loaded machine): the same for the PostgreSQL store, three stores at once, in process
  // and over the protocol.
  'conformance/stores/postgres.test.ts',
  // ~20 s: edited artifacts replayed, and modules that never settle or answer values no JSON holds
  // (that one runs to its 6 s time limit), each a check of its own.
  'cli/untrusted.test.ts',
  // ~20 s: the fast step against xstate's on every transition of the S scope, of each variant's,
  // and on campaigns (the M scope, 43 s more, runs in npm run bench:step).
  'conformance/fastStepEqualsReference.test.ts',
  // ~25 s: regenerates every generated page and runs the commands the chapters quote. It waits on
  // nothing, yet runs in the `slow` lane, so that both lanes end together.
  'docs/docs.test.ts',
  // ~33 s: five racy Python stores caught over jobcheck/2, each a concurrent campaign.
  'examples/python/racy.test.ts',
  // ~105-160 s (a loaded machine): the packed tarball installed with npm into an ESM, a CommonJS and an
  // empty project, used there, and the README's Start here and chapters 4 and 10 followed in the last.
  'cli/pack.test.ts',
  // Installs jobcheck from a git URL into empty projects: a build and an install of the devDependencies each.
  'cli/install.test.ts',
  // Runs the starters in Python, JavaScript and Go against `jobcheck check`.
  'starters/starters.test.ts',
  // ~21 s (a loaded machine): runs chapter 10's steps, each check of a starter, in a fresh copy.
  'starters/chapter.test.ts',
  // ~80 s (a loaded machine): makes a release (scripts/release.sh builds dist/), installs the Action
  // from its tag, and runs its steps against the Python example and a broken variant.
  'cli/github.test.ts',
  // ~28 s and ~22 s: crash campaigns with real kills of SQLite and PostgreSQL store processes.
  'conformance/crash/crash.test.ts',
  'conformance/crash/pgCrash.test.ts',
  // ~7 s: the lanes campaign with a PostgreSQL store per lane process (three node processes started).
  'conformance/stores/processLanes.test.ts',
  // ~6 s: a PostgreSQL server of its own killed under lanes of claim + ack: nothing acknowledged is lost.
  'conformance/crash/pgServerKill.test.ts',
  // ~24 s: modules that stall or end their process, run isolated until SIGTERM ends them.
  'conformance/isolated/isolated.test.ts',
  // ~23 s: every broken variant of the catalogue through the real command.
  'scripts/catalogue.test.ts',
  // ~3 s: a throw-away PostgreSQL server started, its folder removed under it, and stopped.
  'scripts/pg.test.ts',
  // ~22 s: the CI recipes of docs/ci.md run step by step.
  'docs/ci.test.ts',
  // ~19 s: reproduce lines, edited and untouched, each through the real command, a process each.
  'cli/reproduce.test.ts',
  // ~16 s: exhaustive exploration against the built-in store, broken variants and the Python example.
  'conformance/explore/differential.test.ts',
  // ~14 s: the racy catalogue caught over jobcheck/2 through real processes.
  'conformance/broken/concurrent/overProtocol.test.ts',
  // ~22 s: competing-worker runs that wait on purpose (a reply 2.5 s late, requests never settled).
  'conformance/concurrent/run.test.ts',
  // ~11 s: competing workers through the real command, each a process of its own.
  'cli/concurrent.test.ts',
  // ~10 s (~25 s at load 9): the failure story stepped through by clicks and keys in headless Chromium, three pages.
  'cli/report/story/storyPage.test.ts',
  // ~20 s: a lab story played to the end in headless Chromium (the page built first), and `lab --serve` as a process.
  'cli/report/lab/labPage.test.ts',
  // A few seconds: Service Bus Receive-and-Delete's loss and Peek-Lock's redelivery stepped in headless Chromium.
  'cli/report/lab/documentedLab.test.ts',
  // ~9 s: the lab as a worksheet in headless Chromium: edits, the four experiments, a worksheet saved and loaded, a failure's story opened.
  'cli/report/lab/labWorksheet.test.ts',
  // ~10 s: a race's history hovered, clicked and moved through by keys in headless Chromium.
  'cli/report/race/racePage.test.ts',
  // ~4 s: the run page's header and contents read back from the DOM in headless Chromium, keys and overflow.
  'cli/report/pagePage.test.ts',
  // ~4 s: compiles a Go program that decodes the Porcupine export into Porcupine's Operation fields.
  'conformance/concurrent/porcupineExport.test.ts',
  // ~10-15 s: starts and stops all four brokers through scripts/brokers.sh once (RabbitMQ ~10 s a
  // start), and the three quick ones again for SIGTERM.
  'scripts/brokers.test.ts',
  // ~55 s: a profile of NATS JetStream on its own clock (100 ms a tick) runs every fixture story in real time.
  'adapters/nats-jetstream/profileRun.test.ts',
  // ~5 s of real broker time (one tick is 400 ms): RabbitMQ's departures, each story run twice on a real server.
  'adapters/rabbitmq/departures.test.ts',
  // ~12 s: a concurrent campaign of four workers on RabbitMQ's own clock, shrinking its failure until its time limit.
  'adapters/rabbitmq/concurrentCampaign.test.ts',
  // ~2 s on RabbitMQ: spans of the real amqplib instrumentation (a child process) read by the OTLP importer.
  'adapters/rabbitmq/otlp.test.ts',
  // ~18 s: BullMQ on Redis on its own clock (200 ms a tick): generated lockstep runs with restarts, competing lanes.
  'adapters/bullmq-redis/adapter.test.ts',
  // ~1 s on Redis (a real lock expiry of 400 ms): the BullMQ recorder's history of a refused late completion.
  'adapters/bullmq-redis/recorder.test.ts',
  // ~3 s: Redis Streams on its own clock (100 ms a tick): the stale XACK replayed 3 times, competing lanes, dead letters.
  'adapters/redis-streams/adapter.test.ts',
  // ~10 s: starts each SQS emulator (a node child process) and waits out a lease on local-aws-sqs's fast wall clock.
  'adapters/sqs/sqs.test.ts',
  // ~25 s: the stale-acknowledgement scenario on all four brokers, each departure replayed three times in real time.
  'adapters/staleAck.test.ts',
  // ~2 min: each real queue's server killed a few seconds into a profile (RabbitMQ ~10 s a start), and no server at all.
  'adapters/brokerLoss.test.ts',
  // ~25 s (in pairs): every real queue's profile and check with no server at its address, a setup error.
  'adapters/brokerAbsent.test.ts',
  // ~1 s: a worker cut off from a real Redis by its proxy (hold), whose late XACK settles another's claim.
  'conformance/nemesis/redisPartition.test.ts',
  // ~2 s: worker processes in Linux network namespaces cut off by nft rules, waiting on TCP's retransmission.
  'conformance/nemesis/namespace.test.ts',
  // ~35 s (in pairs): each broker server started, killed, restarted, paused and disposed of, and filled to a full disk.
  'conformance/servers/servers.test.ts',
  // ~35 s (in pairs): every durability configuration's acknowledged writes counted across a SIGKILL and a restart.
  'conformance/servers/durability.test.ts',
  // ~30 s: the fault campaign on Redis, beanstalkd, NATS and PostgreSQL servers it starts (kill, restart, a worker cut off).
  'adapters/faults.test.ts',
  // ~6 s: a NATS JetStream run recorded and audited, and a stale ack waited out (1 s ack wait) and audited by the command.
  'adapters/nats-jetstream/recorder.test.ts',
  // ~3 s: a NATS server of its own, paused then killed under an ack in flight.
  'adapters/nats-jetstream/serverLoss.test.ts',
  // ~1 s: a RabbitMQ run recorded through amqplib channels on a real server, then audited.
  'adapters/rabbitmq/recorder.test.ts',
  // ~1 s: a pg-boss run recorded on a real PostgreSQL (its own schema), then audited.
  'adapters/pg-boss/recorder.test.ts',
  // <1 s: a beanstalkd run recorded on a real server (its own tube), then audited.
  'adapters/beanstalkd/recorder.test.ts',
];

/**
 * The files of the slow part that run beside the others (the `slow-pairs` lane of
 * scripts/testSlow.sh): none of them races a short timeout. Most of their time is spent waiting on
 * other processes (npm installing, Go compiling, a browser rendering, a check of a small example
 * with a generous time limit), or computing in process against limits of minutes (the store
 * campaigns, the exhaustive comparisons). The rest of the slow part (the `slow` lane) waits out
 * timeouts, drives peers whose replies must come within a few seconds, or follows a broker's wall
 * clock: two of those never run at once, and each has a core of the two to itself but for its
 * one neighbour from this list.
 */
export const SLOW_IN_PAIRS: readonly string[] = [
  'scripts/catalogue.test.ts',
  'conformance/broken/decisionBugs.test.ts',
  'conformance/stores/postgres.test.ts',
  // Beside postgres.test.ts, never at once with it: both read the server's jobcheck_ schemas.
  'conformance/crash/pgCrash.test.ts',
  // Never at once with postgres.test.ts either: it makes jobcheck_ schemas, which that file counts.
  'conformance/stores/processLanes.test.ts',
  'conformance/fastStepEqualsReference.test.ts',
  // Kills and restarts of store processes, and reproduce lines each with a generous wall-time
  // bound: here, and the exhaustive differential exploration in the other lane, so that the two
  // lanes end together.
  'conformance/crash/crash.test.ts',
  'cli/reproduce.test.ts',
  'cli/pack.test.ts',
  'cli/install.test.ts',
  'starters/starters.test.ts',
  'starters/chapter.test.ts',
  'cli/github.test.ts',
  'docs/ci.test.ts',
  'cli/report/story/storyPage.test.ts',
  'cli/report/lab/labPage.test.ts',
  'cli/report/lab/documentedLab.test.ts',
  'cli/report/lab/labWorksheet.test.ts',
  'cli/report/race/racePage.test.ts',
  'cli/report/pagePage.test.ts',
  'conformance/concurrent/porcupineExport.test.ts',
  // Broker servers' starts and restarts: lower bounds on waiting only, never a short timeout.
  'conformance/servers/servers.test.ts',
  'conformance/servers/durability.test.ts',
  'conformance/crash/pgServerKill.test.ts',
  'adapters/brokerAbsent.test.ts',
];

/** Never test files: dependencies and scratch work. */
const NOT_TESTS = ['node_modules/**', 'scratch/**'];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      // Two files at a time on CI's two cores: a quick file waits on nothing for more than a few seconds.
      // Not isolated: each worker keeps the modules it loaded for the next file, which saves about a
      // minute of CPU in module loading; a file that mocks a module loads it again (vi.resetModules),
      // and a file that changes process.env puts it back. The slow lanes stay isolated: one worker
      // would carry every file's heap to the end of its lane.
      {
        extends: true,
        test: {
          name: 'quick',
          include: ['**/*.test.ts'],
          exclude: [...NOT_TESTS, ...SLOW_TESTS],
          maxWorkers: 2,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: [...SLOW_TESTS],
          exclude: [...NOT_TESTS, ...SLOW_IN_PAIRS],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      // Its own group: in one vitest process (`npm run test:all`) after the `slow` files, one at a
      // time; scripts/testSlow.sh runs it in a process of its own beside them.
      {
        extends: true,
        test: {
          name: 'slow-pairs',
          include: [...SLOW_IN_PAIRS],
          exclude: NOT_TESTS,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
