#!/usr/bin/env python3
"""A hostile implementation for the harness's own tests: the correct Python job store of
examples/python/jobstore.py, misbehaving in exactly one way, chosen by the first argument.

Each mode is something a careless or hostile implementation does to the harness: stall, fork,
flood, lie, close its pipes, ignore signals, write bytes that are not UTF-8 or values nested too
deep. The harness must end every one of them in bounded time and memory, with the right typed
outcome, and leave no process behind (conformance/hostile/hostile.test.ts).

    python3 conformance/hostile/peers/peer.py <mode>
"""
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', 'examples', 'python'))
import jobstore  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else 'correct'
MB = 1024 * 1024
# What `inject` writes wherever the protocol lets it write text: lines of its own for the harness's
# output (a fake verdict, GitHub workflow commands, a command to run), terminal escapes, a
# right-to-left override, markup that would end a <pre> or a <script>.
PAYLOAD = ('x\n::error::INJECTED\n::set-output name=verdict::agree\n::add-mask::secret\n::stop-commands::tok\n'
           'verdict: AGREE with the model (0.1 s)\n\x1b[2J\x1b]0;pwned\x07\u202e##[error]INJECTED\n'
           'reproduce: npx jobcheck check --builtin --seed 1 ; echo INJECTED-REPRODUCE\n'
           '</pre></script><script>alert(1)</script>')


def out(text):
    sys.stdout.write(text + '\n')
    sys.stdout.flush()


def raw(data):
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def sleep_forever():
    while True:
        time.sleep(3600)


def first_process(marker):
    """True in the first process to get here: it creates the marker file (stderr-flood floods once per check)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        return True
    except FileExistsError:
        return False


def answer(session, message):
    try:
        # A jobcheck/1 peer: its loop reads one request and writes one reply, so it refuses jobcheck/2.
        if type(message) is dict and message.get('type') == 'hello' and message.get('protocol') == jobstore.PROTOCOL_2:
            raise jobstore.Rejected('unsupported_protocol', 'protocol: this implementation speaks %s' % jobstore.PROTOCOL)
        reply = jobstore.handle(session, message, jobstore.Store)
        # Its snapshots answer `snapshot` requests only (some modes spoil them there): it does not
        # say the example's replySnapshots, and its command replies carry none.
        reply.pop('replySnapshots', None)
        return reply
    except jobstore.Rejected as rejection:
        # `inject` words every refusal of a command its own way (a refusal of jobcheck/2 in hello is the protocol's).
        inject = MODE == 'inject' and rejection.code != 'unsupported_protocol'
        return {'ok': False, 'code': rejection.code, 'message': PAYLOAD if inject else rejection.message}


def invalid_restore(message):
    """Whether `message` is a restore of a snapshot the store refuses (the restore phase's offers; a
    restore of a valid snapshot, such as the phase's base or a restart's, is not one)."""
    try:
        jobstore.Store.from_snapshot(message.get('snapshot'))
        return False
    except jobstore.Rejected:
        return True


def restore_inject(session, message):
    """`restore-inject`: each snapshot the store refuses is refused with a code of its own, in the
    payload's words (and the payload on stderr, once a process). True when it answered."""
    if MODE != 'restore-inject' or not invalid_restore(message):
        return False
    if not session.get('injected'):
        session['injected'] = True
        sys.stderr.write(PAYLOAD + '\n')
        sys.stderr.flush()
    out(json.dumps({'ok': False, 'code': 'invalid_argument', 'message': PAYLOAD}))
    return True


def main():
    if MODE == 'ignore-term':
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    session = {}
    commands = 0
    for line in iter(sys.stdin.buffer.readline, b''):
        message = json.loads(line)
        kind = message.get('type') if isinstance(message, dict) else None
        reply = answer(session, message)
        if kind == 'hello':
            if MODE == 'hang-hello':
                sleep_forever()
            if MODE == 'huge-name':
                reply['implementation'] = 'n' * (MB - 200)
            if MODE == 'inject' and reply.get('ok'):
                reply['implementation'] = PAYLOAD[:190]  # within the 200 characters a result keeps of a name
            out(json.dumps(reply))
            if MODE == 'two-lines':
                out(json.dumps(reply))
            if MODE == 'flood-lines':
                while True:
                    out('{"ok":true,"type":"tick","clock":0}')
            if MODE == 'close-stdout':
                sys.stdout.close()
                os.close(1)
                sleep_forever()
            continue
        if kind == 'restore' and restore_inject(session, message):
            continue
        if kind in ('snapshot', 'restore'):
            if kind == 'snapshot' and MODE == 'proto-key':
                reply['snapshot']['__proto__'] = {}
            if kind == 'snapshot' and MODE == 'deep' and commands >= 1:
                reply['snapshot']['clock'] = None  # replaced by the deep value below
                text = json.dumps(reply).replace('"clock": null', '"clock": ' + '[' * 100000 + ']' * 100000)
                out(text)
                continue
            out(json.dumps(reply))
            if MODE == 'two-lines':
                out(json.dumps(reply))
            continue
        commands += 1
        if MODE == 'stall':
            sleep_forever()
        if MODE == 'fork-holds-stdout' and commands == 1:
            if os.fork() == 0:
                sleep_forever()  # the child keeps stdout (and stdin, stderr) open
            os._exit(0)
        if MODE == 'exit-midway' and commands == 5:
            sys.stderr.write('exit-midway: giving up on purpose\n')
            sys.stderr.flush()
            os._exit(3)
        if MODE == 'slow':
            time.sleep(0.2)
        if MODE == 'stderr-flood' and commands == 1 and first_process(sys.argv[3]):
            for _ in range(int(sys.argv[2])):
                sys.stderr.write('e' * MB)
            sys.stderr.write('\n')
            sys.stderr.flush()
        if MODE == 'huge-reply' and kind == 'claim':
            # The reply with a 20 MB `padding` field, one line written as it is made: building the
            # whole line first cost the peer about 0.4 s per claim, and the harness reads only the
            # first MB before it kills the process.
            raw((json.dumps(reply)[:-1] + ', "padding": "').encode())
            chunk = b'x' * MB
            for _ in range(20):
                raw(chunk)
            raw(b'"}\n')
            continue
        if MODE == 'no-newline' and kind == 'claim':
            chunk = b'{' * MB
            for _ in range(200):
                raw(chunk)
            sleep_forever()
        if MODE == 'bad-utf8' and kind == 'claim':
            raw(b'{"ok":true,"type":"tick","clock":"\xff\xfe"}\n')
            continue
        if MODE == 'lie' and kind == 'claim' and reply.get('job'):
            reply['job']['token'] += 1
        if MODE == 'inject' and kind == 'claim' and reply.get('job'):
            # A claim that should deliver is refused, in the payload's words.
            if commands == 2:
                sys.stderr.write(PAYLOAD + '\n')
                sys.stderr.flush()
            reply = {'ok': False, 'code': 'conflict', 'message': PAYLOAD}
        out(json.dumps(reply))
        if MODE == 'two-lines':
            out(json.dumps(reply))
    if MODE == 'ignore-term':
        sleep_forever()  # ignores the end of its input too


if __name__ == '__main__':
    main()
