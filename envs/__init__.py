"""Environments over the rummyrl engines: PettingZoo, Gymnasium and batched self-play."""
