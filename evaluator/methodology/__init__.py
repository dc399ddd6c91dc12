"""What the Methodology page states, generated from the registries (`docs`), the figures computed once from the
public samples (`figures`) and the re-scoring of pacute-bench's released results (`pacute_compat`)."""
