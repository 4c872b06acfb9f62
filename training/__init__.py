"""Training: program corpus, trajectory data, tokenizer, the Llama model and its training loop."""
