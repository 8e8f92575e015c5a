#!/usr/bin/env python3
"""A complete job store in Python 3 (standard library only) that speaks the jobcheck/1 protocol
and its concurrent revision jobcheck/2: the contract of docs/contract.md over JSON lines as
docs/protocol.md describes (one request a line on stdin, one reply a line on stdout, logs to
stderr). Check it with `npx --no-install jobcheck check --impl "python3 examples/python/jobstore.py"`.

Under jobcheck/2 each request envelope runs in a thread of its own over the one store, which a
lock guards (`Store.execute_concurrently`), and its reply is written as soon as it is ready. Under
jobcheck/1 everything runs on the main thread; its hello says `replySnapshots` (each reply carries
the snapshot after it; `--no-reply-snapshots` for reading a session by eye) and `pipelining`
(requests may be written ahead; `--no-pipelining`). `--no-concurrent` refuses jobcheck/2.

It is written from the contract, not translated from the TypeScript store, and meant to be read:
the `Store` class keeps each rule in its own small method, which the variants in `broken/`
override to plant one bug each. No command scans every job: `jobs` holds every admitted job by
id in admission order; `queues` each account's unresolved jobs (the first is the head);
`running` the running jobs by delivery token; `timers` a heap of (instant, seq, id) for
deadlines, lease ends and backoff ends, whose stale entries are harmless; `ready_heads` a heap
of (seq, id) of ready account heads (stale entries skipped when met).
"""
import heapq
import json
import sys
import threading
import traceback

PROTOCOL = 'jobcheck/1'
# The revision for concurrent requests: commands travel in request envelopes with an id and a lane.
PROTOCOL_2 = 'jobcheck/2'
PROTOCOLS = (PROTOCOL, PROTOCOL_2)
SNAPSHOT_FORMAT = 'jobcheck.snapshot/1'
IMPLEMENTATION = 'python-jobstore'
# Largest integer the contract allows (JavaScript's Number.MAX_SAFE_INTEGER): every integer of the
# wire format lies in [-MAX_SAFE, MAX_SAFE], and sums of times saturate at MAX_SAFE.
MAX_SAFE = 2 ** 53 - 1

UNRESOLVED = ('ready', 'waiting', 'running')
DEAD_REASONS = ('deadline', 'lease_expired', 'permanent', 'attempts_exhausted', 'no_time_for_retry')


class Rejected(Exception):
    """A reply {ok: false, code, message}: a refused command, hello or restore."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def describe(value):
    """Renders a value for a message, short and unambiguous."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = '(a value too deep or odd to show)'
    return text if len(text) <= 60 else text[:57] + '...'


# ---------------------------------------------------------------------------------------------
# Validation of everything that comes from outside. `where` names the field for the message and
# `code` is the rejection code to use (invalid_argument, invalid_config or invalid_snapshot).


def as_int(value, where, code, minimum=None):
    """A JSON number that is an integer in the safe range (5, 5.0 and 5e0 are one number in JSON;
    true, 5.5, NaN and 2^53 are not integers of the contract)."""
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or not -MAX_SAFE <= value <= MAX_SAFE:
        raise Rejected(code, '%s: must be a safe integer (got %s)' % (where, describe(value)))
    if minimum is not None and value < minimum:
        raise Rejected(code, '%s: must be >= %d (got %s)' % (where, minimum, describe(value)))
    return value


def as_text(value, where, code):
    """A non-empty string."""
    if type(value) is not str or value == '':
        raise Rejected(code, '%s: must be a non-empty string (got %s)' % (where, describe(value)))
    return value


def as_object(value, where, code, required, optional=()):
    """A JSON object with exactly the required keys and possibly some optional ones."""
    if type(value) is not dict:
        raise Rejected(code, '%s: must be an object (got %s)' % (where or 'value', describe(value)))
    for key in value:
        if key not in required and key not in optional:
            raise Rejected(code, '%s: unknown field' % join(where, key))
    for key in required:
        if key not in value:
            raise Rejected(code, '%s: is required' % join(where, key))
    return value


def as_map(value, where, code):
    """A JSON object used as a map (any keys)."""
    if type(value) is not dict:
        raise Rejected(code, '%s: must be an object (got %s)' % (where, describe(value)))
    return value


def join(where, key):
    return key if where == '' else where + '.' + key


TEXT, INT, TIME, POSITIVE, KIND = 'text', 'int', 'time', 'positive', 'kind'
COMMAND_FIELDS = {
    'submit': {'id': TEXT, 'account': TEXT, 'key': TEXT, 'amount': INT, 'deadline': TIME, 'now': TIME},
    'claim': {'worker': TEXT, 'now': TIME},
    'commit': {'worker': TEXT, 'token': POSITIVE, 'now': TIME},
    'ack': {'worker': TEXT, 'token': POSITIVE, 'now': TIME},
    'fail': {'worker': TEXT, 'token': POSITIVE, 'kind': KIND, 'error': TEXT, 'now': TIME},
    'tick': {'now': TIME},
}


def field(value, kind, where, code):
    if kind == TEXT:
        return as_text(value, where, code)
    if kind == INT:
        return as_int(value, where, code)
    if kind == TIME:
        return as_int(value, where, code, 0)
    if kind == POSITIVE:
        return as_int(value, where, code, 1)
    if type(value) is not str or value not in ('transient', 'permanent'):
        raise Rejected(code, '%s: must be "transient" or "permanent" (got %s)' % (where, describe(value)))
    return value


def parse_command(message):
    """Step 1 of the contract, without the clock: a clean command dict, or Rejected(invalid_argument)."""
    if type(message) is not dict:
        raise Rejected('invalid_argument', 'command: must be an object (got %s)' % describe(message))
    kind = message.get('type')
    if type(kind) is not str or kind not in COMMAND_FIELDS:
        raise Rejected('invalid_argument', 'type: must be one of %s (got %s)'
                       % (', '.join(COMMAND_FIELDS), describe(kind)))
    fields = COMMAND_FIELDS[kind]
    as_object(message, '', 'invalid_argument', ('type',) + tuple(fields))
    command = {'type': kind}
    for name, field_kind in fields.items():
        command[name] = field(message[name], field_kind, name, 'invalid_argument')
    if kind == 'submit' and command['deadline'] <= command['now']:
        raise Rejected('invalid_argument', 'deadline: must be greater than now (got %d)' % command['deadline'])
    return command


CONFIG_FIELDS = ('capacity', 'maxAttempts', 'leaseTicks', 'backoffBase', 'backoffCap')


def parse_config(value, where='config', code='invalid_config'):
    """A store config: five integers >= 1, with backoffCap >= backoffBase."""
    as_object(value, where, code, CONFIG_FIELDS)
    config = {name: as_int(value[name], join(where, name), code, 1) for name in CONFIG_FIELDS}
    if config['backoffCap'] < config['backoffBase']:
        raise Rejected(code, '%s: must be >= backoffBase (got %d)' % (join(where, 'backoffCap'), config['backoffCap']))
    return config


def add_time(a, b):
    """a + b for times, saturating at MAX_SAFE."""
    return min(a + b, MAX_SAFE)


def backoff_delay(config, attempts):
    """min(backoffBase * 2^(attempts-1), backoffCap), without building huge numbers."""
    delay, cap = config['backoffBase'], config['backoffCap']
    for _ in range(1, attempts):
        if delay >= cap:
            break
        delay *= 2
    return min(delay, cap)


# ---------------------------------------------------------------------------------------------
# The store.


class Job:
    """One admitted job. Fields that only mean something in some statuses are None elsewhere."""

    __slots__ = ('id', 'account', 'key', 'amount', 'deadline', 'seq', 'status', 'attempts',
                 'token', 'owner', 'lease_until', 'not_before', 'reason', 'last_error')

    def __init__(self, job_id, account, key, amount, deadline, seq):
        self.id, self.account, self.key, self.amount, self.deadline = job_id, account, key, amount, deadline
        self.seq = seq
        self.status = 'ready'
        self.attempts = 0
        self.token = self.owner = self.lease_until = self.not_before = self.reason = self.last_error = None

    def payload(self):
        return {'account': self.account, 'key': self.key, 'amount': self.amount, 'deadline': self.deadline}


class Store:
    """The job store: executes commands, takes canonical snapshots, restores from them."""

    def __init__(self, config):
        self.config = config
        self.clock = 0
        self.next_token = 1
        self.next_seq = 1
        self.jobs = {}
        self.queues = {}
        self.running = {}
        self.unresolved = 0
        self.timers = []
        self.ready_heads = []
        self.balances = {}
        self.effects = {}
        # Guards every field above when requests run in threads (jobcheck/2).
        self.lock = threading.Lock()

    # -- the three steps of every command ------------------------------------------------------

    def execute(self, message):
        command = self.begin(message)
        return getattr(self, 'do_' + command['type'])(command)

    def execute_concurrently(self, message):
        """execute() for a request running in a thread of its own: one command at a time holds the store."""
        with self.lock:
            return self.execute(message)

    def begin(self, message):
        """Steps 1 and 2: the command checked, the clock not going back, then moved to `now`."""
        command = parse_command(message)
        now = command['now']
        if now < self.clock:
            raise Rejected('clock_regressed', 'now: %d is before the clock (%d)' % (now, self.clock))
        self.advance(now)
        return command

    def advance(self, now):
        """Step 2: the clock moves to `now`; every job with an instant at or before `now` is looked at."""
        self.clock = now
        while self.timers and self.timers[0][0] <= now:
            _, _, job_id = heapq.heappop(self.timers)
            job = self.jobs[job_id]
            if job.status in UNRESOLVED:
                self.expire(job, now)

    def expire(self, job, now):
        """What time does to one unresolved job: the deadline first, then the lease, then the backoff."""
        if now >= job.deadline:
            self.kill(job, 'deadline')
        elif job.status == 'running' and now >= self.lease_end(job):
            if job.attempts >= self.config['maxAttempts']:
                self.kill(job, 'lease_expired')
            else:
                self.end_delivery(job)
                self.make_ready(job)
        elif job.status == 'waiting' and now >= job.not_before:
            job.not_before = None
            self.make_ready(job)

    def lease_end(self, job):
        """The first tick at which the current lease has expired (a lease is valid before leaseUntil)."""
        return job.lease_until

    # -- commands ---------------------------------------------------------------------------------

    def do_submit(self, c):
        existing = self.jobs.get(c['id'])
        if existing is not None:
            if existing.payload() == {k: c[k] for k in ('account', 'key', 'amount', 'deadline')}:
                return {'ok': True, 'type': 'submit', 'id': existing.id, 'seq': existing.seq, 'duplicate': True}
            raise Rejected('conflict', 'job %s already exists with another payload (%s)'
                           % (describe(c['id']), describe(existing.payload())))
        if self.unresolved >= self.config['capacity']:
            raise Rejected('capacity_exceeded', 'capacity %d is full: %d unresolved jobs'
                           % (self.config['capacity'], self.unresolved))
        if self.next_seq >= MAX_SAFE:
            raise Rejected('out_of_range', 'nextSeq is %d: a new admission number would leave the safe range'
                           % self.next_seq)
        job = Job(c['id'], c['account'], c['key'], c['amount'], c['deadline'], self.next_seq)
        self.next_seq += 1
        self.admit(job)
        return {'ok': True, 'type': 'submit', 'id': job.id, 'seq': job.seq, 'duplicate': False}

    def do_claim(self, c):
        job = self.next_claimable()
        if job is None:
            return {'ok': True, 'type': 'claim', 'job': None}
        return self.deliver(job, c)

    def deliver(self, job, c):
        """A claim hands `job` (just taken off the ready heads) to c's worker with a new token."""
        if self.next_token >= MAX_SAFE:
            heapq.heappush(self.ready_heads, (job.seq, job.id))  # it stays claimable
            raise Rejected('out_of_range', 'nextToken is %d: a new token would leave the safe range'
                           % self.next_token)
        job.status = 'running'
        job.attempts += 1
        job.token = self.next_token
        self.next_token += 1
        job.owner = c['worker']
        job.lease_until = add_time(c['now'], self.config['leaseTicks'])
        self.running[job.token] = job
        self.wake_at(self.lease_end(job), job)
        return {'ok': True, 'type': 'claim', 'job': {'id': job.id, 'token': job.token, 'attempt': job.attempts,
                                                     'leaseUntil': job.lease_until, 'payload': job.payload()}}

    def do_commit(self, c):
        job = self.delivery(c)
        recorded = self.recorded_effect(job.account, job.key)
        if recorded is not None:
            if recorded['amount'] == job.amount:
                return {'ok': True, 'type': 'commit', 'id': job.id, 'applied': False,
                        'balance': self.balances.get(job.account, 0)}
            raise Rejected('conflict', 'effect (%s, %s) was recorded with amount %d, not %d'
                           % (describe(job.account), describe(job.key), recorded['amount'], job.amount))
        balance = self.balances.get(job.account, 0) + job.amount
        if not -MAX_SAFE <= balance <= MAX_SAFE:
            raise Rejected('out_of_range', 'balance of %s would leave the safe-integer range' % describe(job.account))
        self.balances[job.account] = balance
        self.effects.setdefault(job.account, {})[job.key] = {'amount': job.amount, 'job': job.id, 'token': job.token}
        return {'ok': True, 'type': 'commit', 'id': job.id, 'applied': True, 'balance': balance}

    def recorded_effect(self, account, key):
        """The ledger entry of (account, key), or None: this is what makes commits idempotent."""
        return self.effects.get(account, {}).get(key)

    def do_ack(self, c):
        job = self.delivery(c)
        self.end_delivery(job)
        job.status = 'done'
        self.resolve(job)
        return {'ok': True, 'type': 'ack', 'id': job.id}

    def do_fail(self, c):
        job = self.delivery(c)
        job.last_error = c['error']
        if c['kind'] == 'permanent':
            return self.fail_dead(job, 'permanent')
        if job.attempts >= self.config['maxAttempts']:
            return self.fail_dead(job, 'attempts_exhausted')
        not_before = add_time(c['now'], self.retry_delay(job.attempts))
        if not_before >= job.deadline:
            return self.fail_dead(job, 'no_time_for_retry')
        self.end_delivery(job)
        job.status = 'waiting'
        job.not_before = not_before
        self.wake_at(not_before, job)
        return {'ok': True, 'type': 'fail', 'id': job.id, 'status': 'waiting', 'notBefore': not_before}

    def retry_delay(self, attempts):
        """The backoff after the given attempt: doubling from backoffBase, capped at backoffCap."""
        return backoff_delay(self.config, attempts)

    def fail_dead(self, job, reason):
        self.kill(job, reason)
        return {'ok': True, 'type': 'fail', 'id': job.id, 'status': 'dead', 'reason': reason}

    def do_tick(self, _):
        return {'ok': True, 'type': 'tick', 'clock': self.clock}

    def delivery(self, c):
        """The running job whose current delivery is c's token and belongs to c's worker."""
        job = self.running.get(c['token'])
        if job is None:
            raise Rejected('stale_token', 'token %d is not the current delivery of any running job' % c['token'])
        if job.owner != c['worker']:
            raise Rejected('not_owner', 'token %d is held by worker %s, not %s'
                           % (c['token'], describe(job.owner), describe(c['worker'])))
        return job

    # -- bookkeeping of queues, heads and timers --------------------------------------------------

    def admit(self, job):
        """A new (or restored) unresolved job joins its account's queue, in admission order."""
        self.jobs[job.id] = job
        self.unresolved += 1
        queue = self.queues.setdefault(job.account, {})
        queue[job.id] = None
        self.wake_at(job.deadline, job)
        if job.status == 'ready' and len(queue) == 1:
            heapq.heappush(self.ready_heads, (job.seq, job.id))

    def is_head(self, job):
        queue = self.queues.get(job.account)
        return queue is not None and next(iter(queue)) == job.id

    def make_ready(self, job):
        job.status = 'ready'
        if self.is_head(job):
            heapq.heappush(self.ready_heads, (job.seq, job.id))

    def peek_claimable(self):
        """The job the next claim would get, left claimable."""
        job = self.next_claimable()
        if job is not None:
            heapq.heappush(self.ready_heads, (job.seq, job.id))
        return job

    def next_claimable(self):
        """The ready account head admitted first, or None. Stale heap entries are dropped on the way."""
        while self.ready_heads:
            _, job_id = self.ready_heads[0]
            job = self.jobs[job_id]
            heapq.heappop(self.ready_heads)
            if job.status == 'ready' and self.is_head(job):
                return job
        return None

    def end_delivery(self, job):
        if job.token is not None:
            self.running.pop(job.token, None)
        job.token = job.owner = job.lease_until = None

    def kill(self, job, reason):
        self.end_delivery(job)
        job.not_before = None
        job.status = 'dead'
        job.reason = reason
        self.resolve(job)

    def resolve(self, job):
        """The job is done or dead: it leaves its account's queue, and the next job may become head."""
        self.unresolved -= 1
        queue = self.queues[job.account]
        was_head = next(iter(queue)) == job.id
        del queue[job.id]
        if not queue:
            del self.queues[job.account]
        elif was_head:
            head = self.jobs[next(iter(queue))]
            if head.status == 'ready':
                heapq.heappush(self.ready_heads, (head.seq, head.id))

    def wake_at(self, instant, job):
        heapq.heappush(self.timers, (instant, job.seq, job.id))

    # -- snapshots ----------------------------------------------------------------------------------

    def snapshot(self):
        """The canonical snapshot: a fresh JSON value, jobs in admission order, accounts and keys sorted."""
        jobs = {}
        for job in self.jobs.values():
            record = {'payload': job.payload(), 'seq': job.seq, 'status': job.status, 'attempts': job.attempts}
            if job.status == 'running':
                record.update(token=job.token, owner=job.owner, leaseUntil=job.lease_until)
            if job.status == 'waiting':
                record['notBefore'] = job.not_before
            if job.status == 'dead':
                record['reason'] = job.reason
            if job.last_error is not None:
                record['lastError'] = job.last_error
            jobs[job.id] = record
        return {
            'format': SNAPSHOT_FORMAT,
            'config': dict(self.config),
            'clock': self.clock,
            'nextToken': self.next_token,
            'nextSeq': self.next_seq,
            'jobs': jobs,
            'balances': {account: self.balances[account] for account in sorted(self.balances)},
            'effects': {account: {key: dict(ledger[key]) for key in sorted(ledger)}
                        for account, ledger in sorted(self.effects.items())},
        }

    @classmethod
    def from_snapshot(cls, value):
        """A store from a snapshot, after checking every rule a reachable state obeys. Raises
        Rejected('invalid_snapshot') naming the first bad field; shares nothing with `value`."""
        s = check_snapshot(value)
        store = cls(s['config'])
        store.clock, store.next_token, store.next_seq = s['clock'], s['nextToken'], s['nextSeq']
        for job_id, r in sorted(s['jobs'].items(), key=lambda item: item[1]['seq']):
            p = r['payload']
            job = Job(job_id, p['account'], p['key'], p['amount'], p['deadline'], r['seq'])
            job.status, job.attempts = r['status'], r['attempts']
            job.token, job.owner, job.lease_until = r.get('token'), r.get('owner'), r.get('leaseUntil')
            job.not_before, job.reason, job.last_error = r.get('notBefore'), r.get('reason'), r.get('lastError')
            if job.status in UNRESOLVED:
                store.admit(job)
                if job.status == 'running':
                    store.running[job.token] = job
                    store.wake_at(store.lease_end(job), job)
                elif job.status == 'waiting':
                    store.wake_at(job.not_before, job)
            else:
                store.jobs[job_id] = job
        store.balances = dict(s['balances'])
        store.effects = {account: {key: dict(e) for key, e in ledger.items()} for account, ledger in s['effects'].items()}
        return store


JOB_FIELDS = ('token', 'owner', 'leaseUntil', 'notBefore', 'reason', 'lastError')
FIELDS_BY_STATUS = {'ready': (), 'waiting': ('notBefore',), 'running': ('token', 'owner', 'leaseUntil'),
                    'done': (), 'dead': ('reason',)}


def check_snapshot(value):
    """Validates a snapshot: its shape first, then the cross-field rules. Returns a clean deep copy."""
    bad = 'invalid_snapshot'

    def fail(where, message):
        raise Rejected(bad, 'invalid snapshot: %s: %s' % (where, message))

    try:
        as_object(value, '', bad, ('format', 'config', 'clock', 'nextToken', 'nextSeq', 'jobs', 'balances', 'effects'))
        if value['format'] != SNAPSHOT_FORMAT:
            fail('format', 'must be %s (got %s)' % (describe(SNAPSHOT_FORMAT), describe(value['format'])))
        config = parse_config(value['config'], 'config', bad)
        clock = as_int(value['clock'], 'clock', bad, 0)
        next_token = as_int(value['nextToken'], 'nextToken', bad, 1)
        next_seq = as_int(value['nextSeq'], 'nextSeq', bad, 1)
        jobs = {}
        as_map(value['jobs'], 'jobs', bad)
        for job_id, r in value['jobs'].items():
            at = 'jobs.' + job_id
            as_text(job_id, 'jobs (a key)', bad)
            as_object(r, at, bad, ('payload', 'seq', 'status', 'attempts'), JOB_FIELDS)
            p = as_object(r['payload'], at + '.payload', bad, ('account', 'key', 'amount', 'deadline'))
            job = {
                'payload': {'account': as_text(p['account'], at + '.payload.account', bad),
                            'key': as_text(p['key'], at + '.payload.key', bad),
                            'amount': as_int(p['amount'], at + '.payload.amount', bad),
                            'deadline': as_int(p['deadline'], at + '.payload.deadline', bad, 0)},
                'seq': as_int(r['seq'], at + '.seq', bad, 1),
                'status': r['status'],
                'attempts': as_int(r['attempts'], at + '.attempts', bad, 0),
            }
            if type(job['status']) is not str or job['status'] not in FIELDS_BY_STATUS:
                fail(at + '.status', 'must be one of %s (got %s)' % (', '.join(FIELDS_BY_STATUS), describe(r['status'])))
            for name, check in (('token', lambda v, w: as_int(v, w, bad, 1)), ('owner', lambda v, w: as_text(v, w, bad)),
                                ('leaseUntil', lambda v, w: as_int(v, w, bad, 0)),
                                ('notBefore', lambda v, w: as_int(v, w, bad, 0)), ('lastError', lambda v, w: as_text(v, w, bad))):
                if name in r:
                    job[name] = check(r[name], at + '.' + name)
            if 'reason' in r:
                if type(r['reason']) is not str or r['reason'] not in DEAD_REASONS:
                    fail(at + '.reason', 'must be one of %s (got %s)' % (', '.join(DEAD_REASONS), describe(r['reason'])))
                job['reason'] = r['reason']
            jobs[job_id] = job
        as_map(value['balances'], 'balances', bad)
        balances = {as_text(a, 'balances (a key)', bad): as_int(n, 'balances.' + a, bad) for a, n in value['balances'].items()}
        as_map(value['effects'], 'effects', bad)
        effects = {}
        for account, ledger in value['effects'].items():
            as_text(account, 'effects (a key)', bad)
            as_map(ledger, 'effects.' + account, bad)
            effects[account] = {}
            for key, e in ledger.items():
                at = 'effects.%s.%s' % (account, key)
                as_text(key, 'effects.%s (a key)' % account, bad)
                as_object(e, at, bad, ('amount', 'job', 'token'))
                effects[account][key] = {'amount': as_int(e['amount'], at + '.amount', bad),
                                         'job': as_text(e['job'], at + '.job', bad),
                                         'token': as_int(e['token'], at + '.token', bad, 1)}
    except Rejected as error:
        if error.message.startswith('invalid snapshot: '):
            raise
        raise Rejected(bad, 'invalid snapshot: ' + error.message)

    # Cross-field rules: what every reachable state obeys.
    seqs, tokens, heads = set(), set(), {}
    unresolved = 0
    for job_id, job in jobs.items():
        at = 'jobs.' + job_id
        status, attempts = job['status'], job['attempts']
        if job['seq'] >= next_seq:
            fail(at + '.seq', 'must be below nextSeq (%d)' % next_seq)
        if job['seq'] in seqs:
            fail(at + '.seq', 'must be unique')
        seqs.add(job['seq'])
        for name in ('token', 'owner', 'leaseUntil', 'notBefore', 'reason'):
            if (name in job) != (name in FIELDS_BY_STATUS[status]):
                fail(at + '.' + name, ('must be absent when status is %s' if name in job else 'is required when status is %s') % status)
        if attempts > config['maxAttempts']:
            fail(at + '.attempts', 'must be <= maxAttempts (%d)' % config['maxAttempts'])
        if status in UNRESOLVED:
            unresolved += 1
            if job['payload']['deadline'] <= clock:
                fail(at + '.payload.deadline', 'must be greater than clock (%d) while unresolved' % clock)
            heads.setdefault(job['payload']['account'], []).append((job['seq'], status))
        if status in ('ready', 'waiting') and attempts >= config['maxAttempts']:
            fail(at + '.attempts', 'must be below maxAttempts (%d) when status is %s' % (config['maxAttempts'], status))
        if status in ('running', 'waiting', 'done') and attempts < 1:
            fail(at + '.attempts', 'must be >= 1 when status is %s' % status)
        if status == 'running':
            if job['token'] >= next_token:
                fail(at + '.token', 'must be below nextToken (%d)' % next_token)
            if job['token'] in tokens:
                fail(at + '.token', 'must be unique among running jobs')
            tokens.add(job['token'])
            if job['leaseUntil'] <= clock:
                fail(at + '.leaseUntil', 'must be greater than clock (%d)' % clock)
        if status == 'waiting':
            if job['notBefore'] <= clock:
                fail(at + '.notBefore', 'must be greater than clock (%d)' % clock)
            if job['notBefore'] >= job['payload']['deadline']:
                fail(at + '.notBefore', 'must be below the deadline')
    if unresolved > config['capacity']:
        fail('jobs', 'holds %d unresolved jobs, more than capacity (%d)' % (unresolved, config['capacity']))
    for account, entries in heads.items():
        head = min(seq for seq, _ in entries)
        for seq, status in entries:
            if seq != head and status != 'ready':
                fail('jobs', 'account %s: a %s job (seq %d) is not the account\'s earliest unresolved job'
                     % (describe(account), status, seq))
    for account, ledger in effects.items():
        if not ledger:
            fail('effects.' + account, 'must not be empty')
        for key, e in ledger.items():
            at = 'effects.%s.%s' % (account, key)
            job = jobs.get(e['job'])
            if job is None:
                fail(at + '.job', 'must name a job of the snapshot')
            p = job['payload']
            if p['account'] != account or p['key'] != key or p['amount'] != e['amount']:
                fail(at, 'does not match the payload of job %s' % describe(e['job']))
            if e['token'] >= next_token:
                fail(at + '.token', 'must be below nextToken (%d)' % next_token)
        total = sum(e['amount'] for e in ledger.values())
        if balances.get(account) != total:
            fail('balances.' + account, 'must equal the sum of the ledger\'s amounts (%d)' % total)
    for account in balances:
        if account not in effects:
            fail('balances.' + account, 'has no effect in the ledger')
    return {'config': config, 'clock': clock, 'nextToken': next_token, 'nextSeq': next_seq,
            'jobs': jobs, 'balances': balances, 'effects': effects}


# ---------------------------------------------------------------------------------------------
# The protocol loop.


def handle(session, message, store_class):
    """One request -> one reply. `session` holds the current store (None before hello) and the
    protocol its hello asked for. Request envelopes of a jobcheck/2 session are main()'s."""
    kind = message.get('type') if type(message) is dict else None
    if kind == 'hello':
        as_object(message, '', 'invalid_argument', ('type', 'protocol', 'config'))
        spoken = session.get('protocols', PROTOCOLS)
        if message['protocol'] not in spoken:
            raise Rejected('unsupported_protocol', 'protocol: this implementation speaks %s (got %s)'
                           % (' and '.join(spoken), describe(message['protocol'])))
        session['store'] = store_class(parse_config(message['config']))
        session['protocol'] = message['protocol']
        reply = {'ok': True, 'type': 'hello', 'protocol': message['protocol'], 'implementation': IMPLEMENTATION}
        if message['protocol'] == PROTOCOL_2:
            reply['concurrent'] = True
        else:
            if session.get('reply_snapshots', True):
                reply['replySnapshots'] = True
            if session.get('pipelining', True):
                reply['pipelining'] = True  # it reads each request as a line, whatever follows it
        return reply
    store = session.get('store')
    if store is None:
        raise Rejected('invalid_argument', 'send hello first (got %s)' % describe(message))
    if kind == 'snapshot':
        as_object(message, '', 'invalid_argument', ('type',))
        return {'ok': True, 'type': 'snapshot', 'snapshot': store.snapshot()}
    if kind == 'restore':
        as_object(message, '', 'invalid_argument', ('type', 'snapshot'))
        session['store'] = store_class.from_snapshot(message['snapshot'])
        return {'ok': True, 'type': 'restore'}
    if session.get('protocol') == PROTOCOL_2:
        raise Rejected('invalid_argument', 'in a %s session a command travels in a request envelope (got %s)'
                       % (PROTOCOL_2, describe(message)))
    return store.execute(message)


def is_protocol_message(message):
    """Whether a request is hello, snapshot or restore (the rest are commands, well-formed or not)."""
    return type(message) is dict and message.get('type') in ('hello', 'snapshot', 'restore')


def parse_envelope(message):
    """A jobcheck/2 request envelope: (id, command), or Rejected(invalid_argument) for a malformed one."""
    as_object(message, 'request', 'invalid_argument', ('type', 'id', 'lane', 'command'))
    request_id = as_int(message['id'], 'request.id', 'invalid_argument', 0)
    as_int(message['lane'], 'request.lane', 'invalid_argument', 0)
    return request_id, message['command']


def run_request(store, request_id, command, write):
    """One request envelope, in a thread of its own: the store's reply, written in a reply envelope."""
    try:
        try:
            reply = store.execute_concurrently(command)
        except Rejected as rejection:
            reply = {'ok': False, 'code': rejection.code, 'message': rejection.message}
        write({'type': 'reply', 'id': request_id, 'reply': reply})
    except Exception:  # a bug of the store: say so and end, so that the harness sees the process die
        traceback.print_exc()
        sys.stderr.flush()
        import os
        os._exit(70)


def main(store_class=Store, stdin=None, stdout=None):
    """Serves the protocol until stdin closes. Broken variants pass their own Store subclass."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout
    session = {'reply_snapshots': '--no-reply-snapshots' not in sys.argv[1:],
               'pipelining': '--no-pipelining' not in sys.argv[1:],
               'protocols': (PROTOCOL,) if '--no-concurrent' in sys.argv[1:] else PROTOCOLS}
    writing = threading.Lock()
    running = []  # the threads of jobcheck/2 requests that may not have replied yet

    def write(reply):
        with writing:
            stdout.write(json.dumps(reply, separators=(',', ':')) + '\n')
            stdout.flush()

    def settle():
        """Waits for every request in flight (hello, snapshot and restore come when none is)."""
        for thread in running:
            thread.join()
        del running[:]

    for line in iter(stdin.readline, b''):
        if not line.strip():
            continue
        message = None  # a line that is not JSON is answered as a command
        try:
            try:
                message = json.loads(line)
            except (ValueError, RecursionError) as error:
                raise Rejected('invalid_argument', 'line is not JSON (or nested too deep): %s' % error)
            if session.get('protocol') == PROTOCOL_2 and type(message) is dict and message.get('type') == 'request':
                request_id, command = parse_envelope(message)
                thread = threading.Thread(target=run_request, args=(session['store'], request_id, command, write), daemon=True)
                thread.start()
                running[:] = [t for t in running if t.is_alive()] + [thread]
                continue
            settle()
            reply = handle(session, message, store_class)
        except Rejected as rejection:
            reply = {'ok': False, 'code': rejection.code, 'message': rejection.message}
        if session.get('protocol') == PROTOCOL and session['reply_snapshots'] and not is_protocol_message(message):
            # replySnapshots: a command's reply (a refusal too) carries the snapshot after it.
            reply['snapshot'] = session['store'].snapshot()
        write(reply)
    settle()


if __name__ == '__main__':
    main()
