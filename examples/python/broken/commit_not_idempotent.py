#!/usr/bin/env python3
"""BUG: commit is not idempotent. The ledger is never consulted, so a redelivered job that commits
again adds its amount a second time (and a different amount under the same key is accepted).
A deliberately broken variant of ../jobstore.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402


class CommitNotIdempotent(jobstore.Store):
    def recorded_effect(self, account, key):
        return None  # the bug: every commit looks like the first one


if __name__ == '__main__':
    jobstore.main(CommitNotIdempotent)
