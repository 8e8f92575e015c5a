#!/usr/bin/env python3
"""BUG: a lease expires one tick late. The lease is treated as still valid at now == leaseUntil
(`now > leaseUntil` instead of `now >= leaseUntil`), so a claim at exactly leaseUntil finds the
job still running instead of redelivering it. A deliberately broken variant of ../jobstore.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402


class LeaseOneTickLate(jobstore.Store):
    def lease_end(self, job):
        return job.lease_until + 1  # the bug: equality is treated as still leased


if __name__ == '__main__':
    jobstore.main(LeaseOneTickLate)
