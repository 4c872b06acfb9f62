"""neural-debugger: a Python debugger whose every stop is predicted by a language model.

Subpackages (each a top-level folder of the repository): ``protocol`` (the language),
``tracer`` (real executions: ground truth and training data), ``evaluation`` (checks and
benchmarks).
"""

__version__ = "0.1.0"
