"""FS-DFM: few-step discrete flow matching."""
