#!/usr/bin/env python3
"""BUG: a commit looks the effect up in the ledger under the store's lock, lets the lock go while it
"applies the effect", then takes the lock again and records it, without looking again. Run
concurrently (jobcheck/2), two commits of one effect in flight together both find the ledger
empty and both apply: a commit at the last tick of a lease racing the commit of the worker that
reclaimed the job (two deliveries of one job), or the same commit sent twice. The balance grows
twice, where the ledger makes a second commit a no-op (`applied: false`).
Sequential use (jobcheck/1, or one request at a time) never shows it.
A deliberately broken variant of ../jobstore.py."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402

# Seconds the lock is let go between the check and the write: the window of the race, wide enough
# for the requests of the next round (a reclaim, the new holder's settlement) to land in it, even
# on a loaded machine, so that a failing scenario fails again when it is replayed.
PAUSE = 0.05


class RaceDoubleEffect(jobstore.Store):
    def execute_concurrently(self, message):
        if type(message) is not dict or message.get('type') != 'commit':
            return super().execute_concurrently(message)
        with self.lock:
            command = self.begin(message)
            job = self.delivery(command)
            if self.recorded_effect(job.account, job.key) is not None:
                return self.do_commit(command)  # a repeat seen in time: the usual reply
        time.sleep(PAUSE)  # the bug: the lock is let go between looking in the ledger and writing to it
        with self.lock:
            balance = self.balances.get(job.account, 0) + job.amount
            if not -jobstore.MAX_SAFE <= balance <= jobstore.MAX_SAFE:
                raise jobstore.Rejected('out_of_range', 'balance of %s would leave the safe-integer range'
                                        % jobstore.describe(job.account))
            self.balances[job.account] = balance
            self.effects.setdefault(job.account, {})[job.key] = {'amount': job.amount, 'job': job.id, 'token': command['token']}
            return {'ok': True, 'type': 'commit', 'id': job.id, 'applied': True, 'balance': balance}


if __name__ == '__main__':
    jobstore.main(RaceDoubleEffect)
