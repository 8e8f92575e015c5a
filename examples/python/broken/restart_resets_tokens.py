#!/usr/bin/env python3
"""BUG: a restart resets delivery tokens. Restoring a snapshot starts the token counter at 1 again
instead of at the saved nextToken, so a token issued before the restart is issued again and a
stale delivery looks current. A deliberately broken variant of ../jobstore.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402


class RestartResetsTokens(jobstore.Store):
    @classmethod
    def from_snapshot(cls, value):
        store = super().from_snapshot(value)
        store.next_token = 1  # the bug: the saved token counter is forgotten
        return store


if __name__ == '__main__':
    jobstore.main(RestartResetsTokens)
