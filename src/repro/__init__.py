"""papers-repro: reproductions of ICLR 2026 papers as Snakemake DAGs."""
