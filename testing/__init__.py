"""What the tests, the benches and the scripts share, from a checkout: sample games, the
results' tables recomputed from the replays, a live server with clients that play on it.
The installed package never needs it, and the wheel does not ship it.
"""
