"""Real executions: record a program with ``sys.settrace``, build state trees, sample trajectories.

Import from the submodules (``tracer.run``, ``tracer.tree``, ``tracer.sampler``): this package
is imported by the tracing subprocess and keeps its own import light.
"""
