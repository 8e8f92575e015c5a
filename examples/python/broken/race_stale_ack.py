#!/usr/bin/env python3
"""BUG: an ack checks its token under the store's lock, lets the lock go while it "finishes up",
then takes the lock again and settles the job it checked, without looking whether the delivery is
still current. Run concurrently (jobcheck/2), an ack sent at the last tick of a lease can land
after the clock reached leaseUntil and another worker reclaimed the job: the old holder's ack then
marks the new holder's job done (a stale acknowledgement after a reclaim). The contract refuses
it: either the ack came first (and no claim gets the job), or the claim did (and the ack, with a
`now` behind the clock, or a token no longer current, is refused).
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


class RaceStaleAck(jobstore.Store):
    def execute_concurrently(self, message):
        if type(message) is not dict or message.get('type') != 'ack':
            return super().execute_concurrently(message)
        with self.lock:
            command = self.begin(message)
            job = self.delivery(command)  # the token is current now...
        time.sleep(PAUSE)  # the bug: ...and the lock is let go before the job is settled
        with self.lock:
            if job.status in jobstore.UNRESOLVED:  # whoever holds it now, it is marked done
                self.end_delivery(job)
                job.status = 'done'
                self.resolve(job)
            return {'ok': True, 'type': 'ack', 'id': job.id}


if __name__ == '__main__':
    jobstore.main(RaceStaleAck)
