#!/usr/bin/env python3
"""BUG: a refused restore is half-applied. The store is emptied before the snapshot is checked, so a
snapshot it rightly refuses still wipes the state it had (the refusal says nothing changed).
A deliberately broken variant of ../jobstore.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import jobstore  # noqa: E402

served = jobstore.handle


def handle(session, message, store_class):
    if type(message) is dict and message.get('type') == 'restore' and session.get('store') is not None:
        session['store'] = store_class(session['store'].config)  # the bug: the old state goes before the check
    return served(session, message, store_class)


if __name__ == '__main__':
    jobstore.handle = handle
    jobstore.main()
