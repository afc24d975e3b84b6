"""REAP (Lasby et al., ICLR 2026): Router-weighted Expert Activation Pruning of MoE experts,
against frequency and EAN pruning and the M-SMoE / HC-SMoE merging baselines."""
