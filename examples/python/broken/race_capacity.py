#!/usr/bin/env python3
"""BUG: a submit checks the capacity under the store's lock, lets the lock go while it "prepares the
job", then takes the lock again and admits it, without counting again. Run concurrently
(jobcheck/2), submits in flight together all see the same free room and are all admitted: more
unresolved jobs than the capacity, where the contract refuses the excess with capacity_exceeded.
Sequential use (jobcheck/1, or one request at a time) never shows it.
A deliberately broken variant of ../jobstore.py."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402

# Seconds the lock is let go between the check and the write: widens the window of the race.
PAUSE = 0.02


class RaceCapacity(jobstore.Store):
    def execute_concurrently(self, message):
        if type(message) is not dict or message.get('type') != 'submit':
            return super().execute_concurrently(message)
        with self.lock:
            command = self.begin(message)
            if command['id'] in self.jobs or self.unresolved >= self.config['capacity']:
                return self.do_submit(command)  # a duplicate, a conflict or a full store: the usual reply
        time.sleep(PAUSE)  # the bug: the lock is let go between the capacity check and the insert
        with self.lock:
            if command['id'] in self.jobs:
                return self.do_submit(command)  # the same job admitted meanwhile: a duplicate
            if self.next_seq >= jobstore.MAX_SAFE:
                return self.do_submit(command)
            job = jobstore.Job(command['id'], command['account'], command['key'], command['amount'],
                               command['deadline'], self.next_seq)
            self.next_seq += 1
            self.admit(job)  # admitted whatever the capacity is now
            return {'ok': True, 'type': 'submit', 'id': job.id, 'seq': job.seq, 'duplicate': False}


if __name__ == '__main__':
    jobstore.main(RaceCapacity)
