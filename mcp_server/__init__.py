"""``ndb mcp``: the neural debugger as tools for coding agents, over the Model Context Protocol.

An agent opens sessions on programs, steps (backwards too), sets breakpoints with conditions,
reads and edits predicted values and asks which inputs produce an output, all without running
the program; a real run happens only when a tool is told ``allow_execution``.
"""
