"""``ndb lsp``: a language server that shows predicted values in the editor, no debug session.

A comment ``# ndb: f([3, 1, 2])`` names a call; the server predicts a debug session of that call
(step into, up to a step budget) in the background and shows what it predicted where the code is
written: inlay hints after assignments, hovers on variables, code lenses on the annotation.
Nothing here runs the user's program, except the ``oracle`` backend when it is asked for by name.
"""
