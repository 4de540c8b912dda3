"""Yams score keeper: a web sheet for games played with real dice."""
