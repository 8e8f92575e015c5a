#!/usr/bin/env python3
"""BUG: a submit replies before its job can be claimed. The job is counted and numbered under the
store's lock and the reply goes out at once, but the job joins its account's queue (where claims
look) only a little later, from a thread of its own, as a store that acknowledges a write before
it is applied would. Run concurrently (jobcheck/2), a worker that submits a job and then claims,
on the same lane, waiting for the submit's reply, may be told there is no job, though its own
submit had already been acknowledged: a lane's write-then-read order is broken. The contract
says a request takes effect between its sending and its reply.
Sequential use (jobcheck/1) never shows it: there every request waits for the one before.
A deliberately broken variant of ../jobstore.py."""
import heapq
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402

# Seconds between a submit's reply and its job joining the queue.
DELAY = 0.05


class RaceLaneOrder(jobstore.Store):
    def __init__(self, config):
        super().__init__(config)
        self.deferring = False

    def execute_concurrently(self, message):
        if type(message) is not dict or message.get('type') != 'submit':
            return super().execute_concurrently(message)
        with self.lock:
            self.deferring = True
            try:
                return self.execute(message)
            finally:
                self.deferring = False

    def admit(self, job):
        if not self.deferring:
            return super().admit(job)
        # The bug: the job is known, counted and timed now, but joins its queue only later.
        self.jobs[job.id] = job
        self.unresolved += 1
        self.wake_at(job.deadline, job)
        threading.Thread(target=self.enqueue_later, args=(job,), daemon=True).start()

    def enqueue_later(self, job):
        time.sleep(DELAY)
        with self.lock:
            if job.status not in jobstore.UNRESOLVED:
                return  # its deadline passed meanwhile: it was resolved without ever being queued
            queue = self.queues.setdefault(job.account, {})
            queue[job.id] = None
            if job.status == 'ready' and len(queue) == 1:
                heapq.heappush(self.ready_heads, (job.seq, job.id))

    def resolve(self, job):
        if job.id in self.queues.get(job.account, {}):
            return super().resolve(job)
        self.unresolved -= 1  # a job resolved before it joined its queue


if __name__ == '__main__':
    jobstore.main(RaceLaneOrder)
