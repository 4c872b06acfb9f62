"""The MCP server: the :class:`~.tools.Debugger`'s tools on the SDK's ``MCPServer``.

The SDK builds each tool's input schema from its signature and its output schema from the
result model, so clients get typed, structured results.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from neural_debugger import __version__

from .tools import Debugger

INSTRUCTIONS = """A neural debugger for Python: every stop is predicted by a language model
trained on execution traces; the program is never run (unless a tool is given allow_execution).
Start with start_session(program, entry), then step / stack / evaluate / set_variable; values
carry how sure the model is. compare_with_real_run checks the predictions against a real run;
predict_inputs asks which call returns a given output. End sessions with end_session."""


def build_server(debugger: Debugger) -> MCPServer:
    server = MCPServer(
        name="neural-debugger",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    for tool in debugger.tools():
        server.add_tool(tool, structured_output=True)
    return server
