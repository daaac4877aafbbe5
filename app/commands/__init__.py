"""Commands that never run in a request: `check-sql` (check, with deduction, indexes: the
reads no index serves, nulls: NULL dates and weights, weights of 0, and printed: a printed
net unlike the weights'), `draft-mapping` (mapping, with matching, sampling, words, dates and
codes) and `demo-db` (demo). They may import every layer below the faces; nothing of app/
imports them but the factory, which registers them.
"""
