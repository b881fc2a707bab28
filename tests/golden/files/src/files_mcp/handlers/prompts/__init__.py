"""Your prompt handlers: one module per prompt, created once by failwell and never overwritten."""
