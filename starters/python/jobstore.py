#!/usr/bin/env python3
"""A starter job store for jobcheck: it speaks the protocol (docs/protocol.md) and implements
`submit`; every other command still answers "not implemented". Run it against the model with

    npx --no-install jobcheck check --impl "python3 starters/python/jobstore.py"

and implement what the first failure story names (README.md says what comes next)."""
import json
import sys

# The store's whole state, shaped exactly like the snapshot the harness compares after every command.
state = None


def refuse(code, message):
    return {'ok': False, 'code': code, 'message': message}


def submit(c):
    if c['now'] < state['clock']:  # [clock-never-regresses]: a command from the past changes nothing
        return refuse('clock_regressed', 'now: %d is before the clock (%d)' % (c['now'], state['clock']))
    state['clock'] = c['now']
    payload = {k: c[k] for k in ('account', 'key', 'amount', 'deadline')}
    job = state['jobs'].get(c['id'])
    if job is not None:  # same id: a duplicate if the payload is equal, else a conflict
        if job['payload'] != payload:
            return refuse('conflict', 'job %s already exists with another payload' % json.dumps(c['id']))
        return {'ok': True, 'type': 'submit', 'id': c['id'], 'seq': job['seq'], 'duplicate': True}
    # [capacity-counts-running]: ready, waiting and running jobs all count against the capacity
    unresolved = [j for j in state['jobs'].values() if j['status'] in ('ready', 'waiting', 'running')]
    if len(unresolved) >= state['config']['capacity']:
        return refuse('capacity_exceeded', 'the store holds %d unresolved jobs' % len(unresolved))
    seq = state['nextSeq']
    state['nextSeq'] += 1
    state['jobs'][c['id']] = {'payload': payload, 'seq': seq, 'status': 'ready', 'attempts': 0}
    return {'ok': True, 'type': 'submit', 'id': c['id'], 'seq': seq, 'duplicate': False}


def execute(c):
    """A command of the contract (docs/contract.md, section 7)."""
    if c.get('type') == 'submit':
        return submit(c)
    return refuse('invalid_argument', 'not implemented yet: %s' % c.get('type'))  # claim, commit, ack, fail, tick


def handle(message):
    global state
    kind = message.get('type')
    if kind == 'hello':  # (re)start an empty store with this config
        if message.get('protocol') not in ('jobcheck/1', 'jobcheck/2'):
            return refuse('unsupported_protocol', 'this starter speaks jobcheck/1 and jobcheck/2')
        state = {'format': 'jobcheck.snapshot/1', 'config': message['config'], 'clock': 0, 'nextToken': 1,
                 'nextSeq': 1, 'jobs': {}, 'balances': {}, 'effects': {}}
        reply = {'ok': True, 'type': 'hello', 'protocol': message['protocol'], 'implementation': 'python-starter'}
        if message['protocol'] == 'jobcheck/2':
            reply['concurrent'] = False  # commands come in envelopes, but one at a time
        return reply
    if state is None:
        return refuse('invalid_argument', 'send hello first')
    if kind == 'snapshot':
        return {'ok': True, 'type': 'snapshot', 'snapshot': state}
    if kind == 'restore':  # a restart: the state is exactly the snapshot the previous process gave
        state = message['snapshot']
        return {'ok': True, 'type': 'restore'}
    if kind == 'request':  # jobcheck/2: a command in an envelope, answered in an envelope with its id
        return {'type': 'reply', 'id': message['id'], 'reply': execute(message['command'])}
    return execute(message)


for line in sys.stdin:  # one request per line, one reply per line
    print(json.dumps(handle(json.loads(line)), separators=(',', ':')))
    # Flush after every reply: a pipe is block-buffered, so an unflushed reply sits in this process
    # and the harness, waiting for it, reports a timeout.
    sys.stdout.flush()
