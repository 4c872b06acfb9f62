"""Shipped model folders (HF format), installed as package data of ``neural_debugger.models``."""
