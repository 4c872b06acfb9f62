"""The Debug Adapter Protocol server: editors drive predicted debug sessions through it.

Every stop an editor shows comes from the runtime (:mod:`neural_debugger.model_backend.session`),
which asks a model for it; the program itself is never run (unless the oracle backend is chosen
by name). The modules split the work so each has one job:

* :mod:`.transport`: Content-Length framing over byte streams, robust to malformed input;
* :mod:`.messages`: pydantic models of the DAP messages, validated on input;
* :mod:`.launch`: launch arguments to a debug session, with engines shared across clients;
* :mod:`.breakpoints`: line breakpoints, their verification and conditions;
* :mod:`.values` and :mod:`.variables`: predicted repr texts shown as DAP variables;
* :mod:`.evaluate`: a safe evaluator over predicted values (never ``eval``);
* :mod:`.adapter`: the translation of one client's requests into runtime calls;
* :mod:`.main`: ``ndb dap`` over stdio or TCP.
"""
