"""RL with verifiable rewards on small LMs, shared by the papers that train reasoning policies
(rove, nft): tasks (Countdown, math) with their data and scorers, the policy (scratch char/byte
models or hub models), sampling, SFT warm-up, the RL loop with pluggable objectives, and
evaluation (avg@n, pass@k, distinct correct answers). A paper brings its objectives."""
