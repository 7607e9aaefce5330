"""rummyrl: Gin Rummy and Rummy for reinforcement learning.

One namespace: the engines (:mod:`rummyrl.gin`, :mod:`rummyrl.rummy`, :mod:`rummyrl.melds`),
the environments (:mod:`rummyrl.envs`), the agents (:mod:`rummyrl.agents`), training
(:mod:`rummyrl.training`, its command line :mod:`rummyrl.train`) and tournaments
(:mod:`rummyrl.evaluate`). Importing ``rummyrl`` loads nothing else; the rule book the
code cites is ``docs/rules.md``.
"""

__version__ = "0.1.0"
