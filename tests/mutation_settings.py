"""A pytest plugin for `make mutation` (`-p tests.mutation_settings`): Hypothesis without its
time limits. mutmut runs every mutant traced, one at a time on a shared machine, where a slow
draw says nothing about the code; a mutant is killed by a wrong answer, never by a clock."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mutation", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=50
)
settings.load_profile("mutation")
