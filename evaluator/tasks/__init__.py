"""Task declarations, one module per benchmark family; `evaluator.registry` collects them."""
