"""The measured patches of daphne, Twisted and the garbage collector, kept in one place."""
