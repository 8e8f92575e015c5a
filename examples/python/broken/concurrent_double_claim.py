#!/usr/bin/env python3
"""BUG: a claim under contention is not atomic. Run concurrently (jobcheck/2), a claim reads the
head of the queue under the store's lock, lets the lock go while it "prepares the delivery", then
takes the lock again and hands out the job it read, without looking whether another claim took it
meanwhile: two workers claiming at once both get the same job (two tokens, two attempts used).
Sequential use (jobcheck/1, or one request at a time) never shows it.
A deliberately broken variant of ../jobstore.py."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402


class ConcurrentDoubleClaim(jobstore.Store):
    def execute_concurrently(self, message):
        if type(message) is not dict or message.get('type') != 'claim':
            return super().execute_concurrently(message)
        with self.lock:
            command = self.begin(message)
            job = self.peek_claimable()
        time.sleep(0.02)  # the bug: the lock is let go between reading the head and taking it
        with self.lock:
            if job is None:
                return {'ok': True, 'type': 'claim', 'job': None}
            self.next_claimable()  # drops the head entry read above, if it is still there
            return self.deliver(job, command)


if __name__ == '__main__':
    jobstore.main(ConcurrentDoubleClaim)
