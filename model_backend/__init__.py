"""Everything above the model talks to a debug session; a session asks the model or a real run."""
