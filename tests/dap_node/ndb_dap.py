"""``python -m neural_debugger dap``, as one script for DebugClient.

DebugClient.start() spawns its adapter as ``runtime executable``: one argument after the
interpreter, where ``-m neural_debugger dap`` takes three. This script is that argument.
"""

import runpy
import sys

sys.argv[1:] = ["dap"]
runpy.run_module("neural_debugger", run_name="__main__", alter_sys=True)
